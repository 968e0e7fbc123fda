// Fuzz: every handler, fed generated hostile requests, answers well-formed JSON, never 500, and
// changes storage exactly as its answer says. FUZZ_RUNS sets cases per property, FUZZ_SEED the seed.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as arb from "./arbitraries.js";
import type { Kind } from "./arbitraries.js";
import { FuzzHarness, KNOWN_IDS } from "./harness.js";
import { validCreatePayload, validUpdatePayload } from "./fields.js";
import type { Item } from "./model.js";

const RUNS = Math.max(1, Math.floor(Number(process.env.FUZZ_RUNS) || 100));
const SEED = Math.floor(Number(process.env.FUZZ_SEED) || 20_260_304);
/** Per property: generous per case, so a long FUZZ_RUNS run is not cut short by vitest. */
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
  await fuzz.stop();
  console.log(fuzz.summary(SEED, RUNS));
});

/**
 * Runs a property on `share` of the cases: fewer where a case sends several requests, or where
 * most requests are refused before storage (a list, a request shaped for another route).
 */
const holds = <T>(cases: fc.Arbitrary<T>, share: number, check: (value: T) => Promise<void>) =>
  fc.assert(fc.asyncProperty(cases, check), { seed: SEED, numRuns: Math.ceil(RUNS * share) });

describe(`hostile input (seed ${SEED}, ${RUNS} runs per property)`, () => {
  it.each([
    ["create", 1],
    ["update", 1],
    ["get", 1],
    ["delete", 1],
    // Bodies, headers and query strings change nothing: every post, ascending, no counter.
    ["list", 1 / 4],
  ] as const)(
    "%s: any request gets a well-formed answer, the status the rulings give, and honest storage",
    async (kind, share) => {
      await holds(arb.hostileRequest(kind, KNOWN_IDS), share, (request) =>
        fuzz.check(kind, request),
      );
    },
    TIMEOUT,
  );

  it(
    "any handler given a request shaped for another route still answers within the rules",
    async () => {
      const crossed = fc
        .tuple(fc.constantFrom(...KINDS), fc.constantFrom(...KINDS))
        .chain(([kind, shape]) =>
          arb.hostileRequest(shape, KNOWN_IDS).map((request) => [kind, request] as const),
        );
      await holds(crossed, 1 / 2, ([kind, request]) => fuzz.check(kind, request));
    },
    TIMEOUT,
  );

  it(
    "an Idempotency-Key replays the first answer to the same body and refuses another with 422",
    async () => {
      const retries = fc.record({
        first: validCreatePayload(KNOWN_IDS),
        other: validCreatePayload(KNOWN_IDS),
        form: fc.constantFrom("reordered", "spaced", "base64") as fc.Arbitrary<Form>,
        name: arb.idempotencyHeader,
        frame: arb.plainFrame,
      });
      await holds(retries, 1 / 8, async ({ first, other, form, name, frame }) => {
        const headers = { ...frame.headers, [name]: fuzz.freshKey() };
        const send = (body: Record<string, unknown>, encoded = arb.resend(body, "spaced")) =>
          fuzz.checkOne("create", { ...frame, headers, postId: undefined, ...encoded });
        try {
          const made = await send(first);
          expect([201, 409]).toContain(made.status);
          const again = await send(first, arb.resend(first, form));
          expect(again.status).toBe(made.status);
          expect(again.body).toEqual(made.body);
          const differs = JSON.stringify(first) !== JSON.stringify(other);
          if (differs) expect((await send(other)).status).toBe(422);
        } finally {
          await fuzz.restoreBaseline();
        }
      });
    },
    TIMEOUT,
  );

  it(
    "valid posts live through create, get, update, list and delete exactly as answered",
    async () => {
      const lifecycle = fc.record({
        created: validCreatePayload(KNOWN_IDS),
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
          // Each answer is held to the model and to the table as it is then: a get after the
          // delete must be 404, a second delete 204, an update of the deleted post 404.
          const steps: [Kind, Record<string, unknown>?][] = [
            ["get"],
            ["update", changes],
            ["get"],
            ["list"],
            ["delete"],
            ["get"],
            ["delete"],
            ["update", changes],
          ];
          const statuses = [];
          for (const [kind, body] of steps) {
            statuses.push((await send(kind, kind === "list" ? undefined : id, body)).status);
          }
          expect(statuses).toEqual([200, 200, 200, 200, 204, 404, 204, 404]);
        } finally {
          await fuzz.restoreBaseline();
        }
      });
    },
    TIMEOUT,
  );
});
