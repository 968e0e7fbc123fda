// Bench section "create throughput": at a fixed concurrency, the create handler against bare
// conditional PutItems; for information, the bare counter ADD every create starts with, and a copy
// of the create handler that reserves ids in blocks (ID_BLOCK_SIZE).
import { apiEvent } from "../tests/helpers/api-event.mjs";
import { BARE_PUT_BASE, LIMITS, TABLES, importHandler, lambdaEnv } from "./context.mjs";
import { expectStatus, filler, log, ratioRow } from "./util.mjs";

/** @typedef {"handler" | "bare" | "counter" | "block"} Side */

// A palindrome, so that each side's segments sit, on average, at the same point in time and a
// steady drift in speed cancels out.
/** @type {Side[]} */
const ORDER = ["handler", "bare", "counter", "block", "block", "counter", "bare", "handler"];

/**
 * Keeps LIMITS.throughput.concurrency calls of `op` in flight for `ms` (or until
 * LIMITS.throughputMaxOps were started); counts those done and those that failed.
 * @param {(n: number) => Promise<unknown>} op @param {number} ms
 */
async function saturate(op, ms) {
  const tally = { done: 0, errors: 0, firstError: /** @type {unknown} */ (undefined) };
  const [begin, { concurrency }] = [performance.now(), LIMITS.throughput];
  let started = 0;
  const worker = async () => {
    while (performance.now() < begin + ms && started < LIMITS.throughputMaxOps) {
      try {
        await op(started++);
        tally.done++;
      } catch (error) {
        tally.errors++;
        tally.firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ...tally, ms: performance.now() - begin };
}

/** @type {import("./context.mjs").Section} */
export const throughput = {
  title: "create throughput",
  /** Operations per second of each side, over all its segments, and of each segment. */
  async measure({ endpoint, floor, handlers }) {
    const warmCreate = handlers["create-post"]; // the warm section's, already warm
    if (!warmCreate) throw new Error("the warm section loads the create handler");
    const { concurrency, idBlockSize, warmupMs, segmentMs } = LIMITS.throughput;
    const env = { ...lambdaEnv(endpoint, TABLES.small), ID_BLOCK_SIZE: String(idBlockSize) };
    const blockCreate = await importHandler("create-post", env, `idBlockSize=${idBlockSize}`);
    delete process.env.ID_BLOCK_SIZE;
    let bareId = BARE_PUT_BASE;
    const content = filler(7, 200);
    const body = (/** @type {number} */ n) => ({ title: `tp ${n}`, content });
    /** @type {Record<Side, (n: number) => Promise<unknown>>} */
    const sides = {
      handler: (n) => expectStatus(warmCreate, apiEvent({ method: "POST", body: body(n) }), 201),
      block: (n) => expectStatus(blockCreate, apiEvent({ method: "POST", body: body(n) }), 201),
      bare: (n) => {
        const at = new Date().toISOString();
        const post = { id: ++bareId, ...body(n), created_at: at, updated_at: at };
        return floor.put(TABLES.small, post);
      },
      // Every create with ID_BLOCK_SIZE=1 first adds 1 to this one item: how fast can that item go?
      counter: () => floor.nextId(TABLES.small),
    };
    // DynamoDB Local's write path gets faster as its JIT warms up: warm both kinds of write first.
    await saturate(sides.handler, warmupMs);
    await saturate(sides.bare, warmupMs);
    /** @type {{ side: Side, done: number, errors: number, ms: number }[]} */
    const segments = [];
    for (const side of ORDER) {
      const { firstError, ...tally } = await saturate(sides[side], segmentMs);
      if (firstError) log(`throughput ${side}: ${tally.errors} errors, first: ${firstError}`);
      segments.push({ side, ...tally });
    }
    const perSecond = (/** @type {Side} */ side) => {
      const mine = segments.filter((segment) => segment.side === side);
      const sum = (/** @type {"done" | "ms"} */ key) => mine.reduce((all, s) => all + s[key], 0);
      return (sum("done") / sum("ms")) * 1000;
    };
    const rates = Object.fromEntries(ORDER.map((side) => [side, perSecond(side)]));
    return { concurrency, idBlockSize, ...rates, segments };
  },
  rows(/** @type {{ concurrency: number, idBlockSize: number } & Record<Side, number>} */ tp) {
    /** @param {string} metric @param {string} name @param {Side} side */
    const row = (metric, name, side, target = "info") =>
      ratioRow(`${metric} (vs bare PutItem)`, name, tp[side], tp.bare, "/s", target);
    const at = `at concurrency ${tp.concurrency}`;
    return [
      row(`create throughput ${at}`, "create-post", "handler", ">= 0.5x"),
      row(`counter ADD/s on the one counter item ${at}`, "bare UpdateItem ADD", "counter"),
      row(`create throughput, ID_BLOCK_SIZE=${tp.idBlockSize}`, "create-post", "block"),
    ];
  },
};
