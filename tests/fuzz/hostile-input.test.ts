// Fuzz: every handler, fed generated hostile requests, answers well-formed JSON, never 500, and
// changes storage exactly as its answer says. FUZZ_RUNS sets cases per property, FUZZ_SEED the seed.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as arb from "./arbitraries.js";
import type { Kind } from "./arbitraries.js";
import { counterAttack } from "./counter-probes.js";
import { FuzzHarness, KNOWN_IDS } from "./harness.js";
import { validCreatePayload, validUpdatePayload } from "./fields.js";
import type { Item } from "./model.js";

const RUNS = Math.max(1, Math.floor(Number(process.env.FUZZ_RUNS) || 100));
const SEED = Math.floor(Number(process.env.FUZZ_SEED) || 20_260_304);
/** Per property: generous per case, so a long FUZZ_RUNS run is not cut short by vitest. */
const TIMEOUT = 60_000 + RUNS * 300;
/**
 * Cases per property: fewer where a case sends several requests, or where most requests are
 * refused before storage (a request shaped for another route).
 */
const RUNS_FOR = {
  single: RUNS,
  crossed: Math.ceil(RUNS / 2),
  list: Math.ceil(RUNS / 4),
  sequence: Math.ceil(RUNS / 4),
  retries: Math.ceil(RUNS / 8),
};
const KINDS: Kind[] = ["list", "get", "create", "update", "delete"];

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

const options = (numRuns: number) => ({ seed: SEED, numRuns });

describe(`hostile input (seed ${SEED}, ${RUNS} runs per property)`, () => {
  it.each(["create", "update", "get", "delete"] as const)(
    "%s: any request gets a well-formed answer, the status the rulings give, and honest storage",
    async (kind) => {
      await fc.assert(
        fc.asyncProperty(arb.hostileRequest(kind, KNOWN_IDS), (request) =>
          fuzz.check(kind, request),
        ),
        options(RUNS_FOR.single),
      );
    },
    TIMEOUT,
  );

  it(
    "list: bodies, headers and query strings change nothing; every post, ascending, no counter",
    async () => {
      await fc.assert(
        fc.asyncProperty(arb.hostileRequest("list", KNOWN_IDS), (request) =>
          fuzz.check("list", request),
        ),
        options(RUNS_FOR.list),
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
      await fc.assert(
        fc.asyncProperty(crossed, ([kind, request]) => fuzz.check(kind, request)),
        options(RUNS_FOR.crossed),
      );
    },
    TIMEOUT,
  );

  it(
    "the id counter (item 0) cannot be named, and ids squatted or probed beside it change nothing of it",
    async () => {
      await fc.assert(
        fc.asyncProperty(counterAttack, async (probe) => {
          try {
            const counter = fuzz.counter();
            const requests = probe.requests(counter, () => fuzz.freshKey());
            const answers = [];
            for (const [kind, request] of requests) {
              answers.push({ kind, ...(await fuzz.checkOne(kind, request)) });
            }
            if (probe.attack === "name-zero") {
              const [{ kind, status, body }] = answers as [(typeof answers)[number]];
              expect(status).toBe(kind === "list" ? 200 : 400);
              if (kind === "list") expect(JSON.stringify(body)).not.toMatch(/last_id/);
            }
            if (probe.attack === "squat") {
              // Squatted or not, the counter-issued create succeeds with an id nobody held.
              const issued = answers.at(-1)!;
              expect(issued.status).toBe(201);
              const id = (issued.body as Item).id as number;
              expect(id).toBeGreaterThan(counter);
              expect(answers.slice(0, -1).map((a) => (a.body as Item).id)).not.toContain(id);
            }
            if (probe.attack === "beside") {
              expect(fuzz.counter(), "reads, updates and deletes never move the counter").toBe(
                counter,
              );
            }
          } finally {
            await fuzz.restoreBaseline();
          }
        }),
        options(RUNS_FOR.list),
      );
    },
    TIMEOUT,
  );

  it(
    "an Idempotency-Key replays the first answer to the same body and refuses another with 422",
    async () => {
      const retries = fc.record({
        first: validCreatePayload(KNOWN_IDS),
        other: validCreatePayload(KNOWN_IDS),
        form: fc.constantFrom("reordered", "spaced", "base64") as fc.Arbitrary<
          "reordered" | "spaced" | "base64"
        >,
        name: arb.idempotencyHeader,
        frame: arb.plainFrame,
      });
      await fc.assert(
        fc.asyncProperty(retries, async ({ first, other, form, name, frame }) => {
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
        }),
        options(RUNS_FOR.retries),
      );
    },
    TIMEOUT,
  );

  it(
    "valid posts live through create, get, update, list and delete exactly as answered",
    async () => {
      const lifecycle = fc.record({
        created: validCreatePayload(KNOWN_IDS),
        changes: validUpdatePayload,
        base64: fc.boolean(),
        frame: arb.plainFrame,
      });
      await fc.assert(
        fc.asyncProperty(lifecycle, async ({ created, changes, base64, frame }) => {
          const send = (kind: Kind, postId?: string, body?: unknown) =>
            fuzz.checkOne(kind, {
              ...frame,
              postId,
              ...(body === undefined
                ? { body: undefined, isBase64Encoded: false }
                : base64
                  ? {
                      body: Buffer.from(JSON.stringify(body)).toString("base64"),
                      isBase64Encoded: true,
                    }
                  : { body: JSON.stringify(body), isBase64Encoded: false }),
            });
          try {
            const made = await send("create", undefined, created);
            if (made.status === 409) return; // a seeded id: the oracle checked the 409
            expect(made.status).toBe(201);
            const id = String((made.body as Item).id);
            expect((await send("get", id)).body).toEqual(made.body);
            const updated = await send("update", id, changes);
            expect(updated.status).toBe(200);
            expect((await send("get", id)).body).toEqual(updated.body);
            expect((await send("list")).body).toContainEqual(updated.body);
            expect((await send("delete", id)).status).toBe(204);
            expect((await send("get", id)).status).toBe(404);
            expect((await send("delete", id)).status).toBe(204);
            expect((await send("update", id, changes)).status).toBe(404);
          } finally {
            await fuzz.restoreBaseline();
          }
        }),
        options(RUNS_FOR.sequence),
      );
    },
    TIMEOUT,
  );
});
