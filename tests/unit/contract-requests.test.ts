// The request side of openapi.yaml against the service's own rules: a timestamp, a body, a path id
// or an Idempotency-Key is valid to the contract exactly when the service takes it, but for the
// rules the schemas' descriptions name (tests/helpers/contract-cases.ts).
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import * as fc from "fast-check";
import { parse } from "yaml";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseIdempotencyKey } from "../../lib/posts/idempotency-key.js";
import { parsePostId, validateCreate, validateUpdate } from "../../lib/posts/post.js";
import { parseClientTimestamp } from "../../lib/posts/timestamps.js";
import * as cases from "../helpers/contract-cases.js";
import { contractSchema } from "../helpers/contract.js";

type Check = cases.Check;
const { accepts, bodyRules, disagreement, timestampRules } = cases;
const RUNS = 3_000;
const SEED = 20261125;
const serviceTimestamp = (value: unknown) => parseClientTimestamp(value) !== undefined;

// The service format is read in the server's zone; the contract's patterns are for UTC.
beforeEach(() => vi.stubEnv("TZ", "UTC"));
afterEach(() => vi.unstubAllEnvs());

type Options = { described?: Check; runs?: number; least?: number };
/** Asserts contract and service agree on `values` but for `described`, both sides reached often. */
function agreeOn(
  values: fc.Arbitrary<unknown>,
  [schema, service]: [Check, Check],
  { described = (): boolean => false, runs = RUNS, least = runs / 20 }: Options = {},
) {
  const seen = { valid: 0, invalid: 0 };
  fc.assert(
    fc.property(values, (value) => {
      seen[schema(value) ? "valid" : "invalid"]++;
      expect(disagreement(schema, service, value, described)).toBeUndefined();
    }),
    { numRuns: runs, seed: SEED },
  );
  expect(seen.valid).toBeGreaterThan(least);
  expect(seen.invalid).toBeGreaterThan(least);
}

describe("a client timestamp (create's created_at and updated_at)", () => {
  const schema = contractSchema("components/schemas/ClientTimestamp") as Check;

  it("is valid to the contract exactly when the service takes it, but for the described rules", () => {
    agreeOn(cases.timestamp, [schema, serviceTimestamp], { described: timestampRules });
  });

  it.each([
    ...["2000-29-02 12:00:00", "2000-02-29T12:00Z", "2000-01-01T00:00Z", null],
    ...["2000-01-01T23:59:59.123456789+23:59", "0000-12-31T23:00-02:00", "9999-01-01T00:30+01:00"],
  ])("takes %s, as the service does", (value) => {
    expect([schema(value), serviceTimestamp(value)]).toEqual([true, true]);
  });

  it.each([
    ...["8140-70-94 22:45:10", "2000-31-04 00:00:00", "2000-01-01 24:00:00"],
    ...["2000-01-01t00:00:00z", "2000-01-01T23:59:60Z", "2000-01-01T00:00:00.1234567890Z"],
    ...["2000-01-01T00:00:00", "0000-01-01 00:00:00", "0000-06-01T00:00Z"],
    ...["0000-12-31T23:00+02:00", "9999-06-01T00:00Z", "9999-01-01T00:30-01:00"],
  ])("refuses %s, as the service does", (value) => {
    expect([schema(value), serviceTimestamp(value)]).toEqual([false, false]);
  });

  it("differs only where the description says: 29 February of a common year, a year past the range", () => {
    for (const value of ["2001-29-02 00:00:00", "2100-02-29T00:00Z", "0000-12-31T10:00-05:00"]) {
      const seen = [schema(value), serviceTimestamp(value), timestampRules(value)];
      expect(seen).toEqual([true, false, true]);
    }
  });

  it("the check finds the disagreements of a contract that is not exact", () => {
    // The patterns this contract once had: any digits in the service format, RFC 3339 for ISO.
    const loose = new Ajv2020({ strict: false }).compile({
      oneOf: [
        { type: "null" },
        { type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$" },
        { type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9:.]+([Zz]|[+-][0-9:]+)$" },
      ],
    }) as Check;
    const found = /the contract says valid, the service invalid/;
    for (const value of ["8140-70-94 22:45:10", "2000-01-01t00:00:00z"]) {
      expect(disagreement(loose, serviceTimestamp, value, timestampRules)).toMatch(found);
    }
  });
});

describe("a create or update body", () => {
  const newPost = contractSchema("components/schemas/NewPost") as Check;
  const changes = contractSchema("components/schemas/PostChanges") as Check;
  // What the service reads is the JSON the client sent, parsed again.
  const wire = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;

  it.each([
    ["create", newPost, validateCreate],
    ["update", changes, validateUpdate],
  ] as const)("%s: valid to the contract exactly when the service takes it", (_, schema, rule) => {
    const options = { described: bodyRules, runs: RUNS / 3, least: RUNS / 30 };
    agreeOn(cases.body.map(wire), [schema, accepts(rule)], options);
  });

  it.each(cases.edgeBodies.map((edge) => [JSON.stringify(edge).slice(0, 60), edge]))(
    "create: agrees on the edge body %s",
    (_, edge) => {
      expect(disagreement(newPost, accepts(validateCreate), edge, bodyRules)).toBeUndefined();
    },
  );

  it("differs only where the descriptions say: a lone surrogate, content over 300,000 bytes", () => {
    const service = accepts(validateCreate);
    for (const value of [
      { title: "\ud800", content: "c" },
      { title: "t", content: "é".repeat(150_001) },
    ]) {
      expect([newPost(value), service(value), bodyRules(value)]).toEqual([true, false, true]);
    }
  });
});

describe("a path id and an Idempotency-Key", () => {
  const postPk = contractSchema("paths/~1api~1post~1{post_pk}/parameters/0/schema") as Check;
  const document = parse(readFileSync(new URL("../../openapi.yaml", import.meta.url), "utf8")) as {
    paths: Record<string, { parameters: { description: string }[] }>;
  };

  it("an id is valid to the contract exactly when the service takes it written in decimal", () => {
    const id = fc.oneof(
      fc.integer({ min: -5, max: 100 }),
      fc.constantFrom(2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, 1.5, 1e21),
      fc.maxSafeInteger(),
    );
    agreeOn(id, [postPk, accepts(parsePostId)], { least: 0 });
  });

  it("an id's text that is not canonical decimal is refused, as the description says", () => {
    for (const text of ["01", "1.0", "1e3", "+1"]) {
      expect([postPk(Number(text)), accepts(parsePostId)(text)]).toEqual([true, false]);
    }
    const idParameter = document.paths["/api/post/{post_pk}"]?.parameters[0];
    expect(idParameter?.description).toMatch(/`01`, `1\.0` and `1e3`/);
  });

  it("an Idempotency-Key is valid to the contract exactly when the service takes it", () => {
    const keySchema = contractSchema("paths/~1api~1post/post/parameters/0/schema") as Check;
    const key = fc.oneof(
      fc.string({ minLength: 0, maxLength: 260 }),
      fc.string({ unit: "binary-ascii", minLength: 250, maxLength: 260 }),
      fc.constantFrom("", " ", "a b", "é", "~", "!".repeat(255), "!".repeat(256)),
    );
    agreeOn(key, [keySchema, accepts(parseIdempotencyKey)], { least: 0 });
  });
});
