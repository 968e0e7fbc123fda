// Fuzz: every handler, fed generated hostile requests, answers well-formed JSON, never 500, and
// changes storage exactly as its answer says. FUZZ_RUNS sets cases per property, FUZZ_SEED the seed.
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as arb from "./arbitraries.js";
import type { Kind } from "./arbitraries.js";
import { FuzzHarness } from "./harness.js";
import { validCreatePayload, validUpdatePayload } from "./fields.js";
import type { Item } from "./model.js";

const RUNS = Math.max(1, Math.floor(Number(process.env.FUZZ_RUNS) || 100));
const SEED = Math.floor(Number(process.env.FUZZ_SEED) || 20_260_304);
const TIMEOUT = 60_000 + RUNS * 300;
const KINDS: Kind[] = ["list", "get", "create", "update", "delete"];
type Form = Parameters<typeof arb.resend>[1];

let fuzz: FuzzHarness;

beforeAll(async () => {
  process.env.TZ = "UTC";
  fuzz = await FuzzHarness.start();
});
afterAll(async () => {
  if (!fuzz) return;
  await fuzz.table.drop();
  console.log(fuzz.summary(SEED, RUNS));
});

/** Runs a property on `share` of RUNS: less where a case sends several requests. */
const holds = <T>(cases: fc.Arbitrary<T>, share: number, check: (value: T) => Promise<void>) =>
  fc.assert(fc.asyncProperty(cases, check), { seed: SEED, numRuns: Math.ceil(RUNS * share) });

describe(`hostile input (seed ${SEED}, ${RUNS} runs per property)`, { timeout: TIMEOUT }, () => {
  it.each(["create", "update", "get", "delete", "list"] as const)(
    "%s: any request gets a well-formed answer, the status the rulings give, and honest storage",
    async (kind) => {
      // A list reads nothing of the request, so it gets fewer cases.
      await holds(arb.hostileRequest(kind), kind === "list" ? 1 / 4 : 1, (request) =>
        fuzz.check(kind, request),
      );
    },
  );

  it("any handler given a request shaped for another route still answers within the rules", async () => {
    const crossed = fc
      .tuple(fc.constantFrom(...KINDS), fc.constantFrom(...KINDS))
      .chain(([kind, shape]) =>
        arb.hostileRequest(shape).map((request) => [kind, request] as const),
      );
    await holds(crossed, 1 / 2, ([kind, request]) => fuzz.check(kind, request));
  });

  it("an Idempotency-Key replays the first answer to the same body and refuses another with 422", async () => {
    const retries = fc.record({
      first: validCreatePayload(),
      other: validCreatePayload(),
      form: fc.constantFrom("reordered", "spaced", "base64") as fc.Arbitrary<Form>,
      name: arb.idempotencyHeader,
      frame: arb.plainFrame,
    });
    await holds(retries, 1 / 8, async ({ first, other, form, name, frame }) => {
      const headers = { ...frame.headers, [name]: `fresh-${randomUUID()}` };
      const send = (body: Record<string, unknown>, encoded = arb.resend(body, "spaced")) =>
        fuzz.checkOne("create", { ...frame, headers, postId: undefined, ...encoded });
      try {
        const made = await send(first);
        expect([201, 409]).toContain(made.status);
        const again = await send(first, arb.resend(first, form));
        expect([again.status, again.body]).toEqual([made.status, made.body]);
        const differs = JSON.stringify(first) !== JSON.stringify(other);
        if (differs) expect((await send(other)).status).toBe(422);
      } finally {
        await fuzz.restoreBaseline();
      }
    });
  });

  it("valid posts live through create, get, update, list and delete exactly as answered", async () => {
    const lifecycle = fc.record({
      created: validCreatePayload(),
      changes: validUpdatePayload,
      form: fc.constantFrom("spaced", "base64") as fc.Arbitrary<Form>,
      frame: arb.plainFrame,
    });
    await holds(lifecycle, 1 / 4, async ({ created, changes, form, frame }) => {
      const send = (kind: Kind, postId?: string, body?: Record<string, unknown>) =>
        fuzz.checkOne(kind, {
          ...frame,
          postId,
          ...(body ? arb.resend(body, form) : { body: undefined, isBase64Encoded: false }),
        });
      try {
        const made = await send("create", undefined, created);
        if (made.status === 409) return; // a seeded id: the oracle checked the 409
        const id = String((made.body as Item).id);
        const steps = ["get", "update", "get", "list", "delete", "get", "delete", "update"];
        const statuses = [];
        for (const kind of steps as Kind[]) {
          const body = kind === "update" ? changes : undefined;
          statuses.push((await send(kind, kind === "list" ? undefined : id, body)).status);
        }
        expect(statuses).toEqual([200, 200, 200, 200, 204, 404, 204, 404]);
      } finally {
        await fuzz.restoreBaseline();
      }
    });
  });
});
