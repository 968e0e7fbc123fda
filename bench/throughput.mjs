// Bench section "create throughput": at a fixed concurrency, the create handler against bare
// conditional PutItems; for information, the bare counter ADD every create starts with, and a copy
// of the create handler that reserves ids in blocks (ID_BLOCK_SIZE).
import { apiEvent } from "../scripts/api-event.mjs";
import { BARE_PUT_BASE, LIMITS, TABLES, importHandler, lambdaEnv, log } from "./context.mjs";
import { filler, ratioRow } from "./util.mjs";

/** @typedef {import("./context.mjs").Handler} Handler */
/** @typedef {"handler" | "bare" | "counter" | "block"} Side */
/** @typedef {{ done: number, errors: number, ms: number }} Tally */
/** @typedef {Awaited<ReturnType<typeof measureThroughput>>} ThroughputResult */

/**
 * Segment order: a palindrome, so that each side's segments sit, on average, at the same point in
 * time and a steady drift in speed cancels out.
 * @type {Side[]}
 */
const ORDER = ["handler", "bare", "counter", "block", "block", "counter", "bare", "handler"];

/**
 * Keeps LIMITS.throughputConcurrency operations in flight for `ms` (or until
 * LIMITS.throughputMaxOpsPerSegment were started).
 * @param {(n: number) => Promise<unknown>} op @param {number} ms
 * @returns {Promise<Tally & { firstError: unknown }>}
 */
async function saturate(op, ms) {
  const tally = { done: 0, errors: 0, ms: 0, firstError: /** @type {unknown} */ (undefined) };
  let started = 0;
  const begin = performance.now();
  const worker = async () => {
    while (performance.now() < begin + ms && started < LIMITS.throughputMaxOpsPerSegment) {
      const n = started++;
      await op(n).then(
        () => tally.done++,
        (error) => {
          tally.errors++;
          tally.firstError ??= error;
        },
      );
    }
  };
  await Promise.all(Array.from({ length: LIMITS.throughputConcurrency }, worker));
  return { ...tally, ms: performance.now() - begin };
}

/**
 * Operations per second of each side, over all its segments, and of each segment.
 * @param {string} endpoint @param {import("./context.mjs").Floor} floor
 * @param {Handler} createHandler the warm section's create handler, already warm
 */
export async function measureThroughput(endpoint, floor, createHandler) {
  const blockSize = LIMITS.throughputIdBlockSize;
  const env = { ...lambdaEnv(endpoint, TABLES.small), ID_BLOCK_SIZE: String(blockSize) };
  const blockHandler = await importHandler("create-post", env, `idBlockSize=${blockSize}`);
  delete process.env.ID_BLOCK_SIZE;
  let bareId = BARE_PUT_BASE;
  const content = filler(7, 200);
  const through = (/** @type {Handler} */ handler) => async (/** @type {number} */ n) => {
    const response = await handler(
      apiEvent({ method: "POST", body: { title: `tp ${n}`, content } }),
    );
    if (response.statusCode !== 201) throw new Error(`create answered ${response.statusCode}`);
  };
  /** @type {Record<Side, (n: number) => Promise<unknown>>} */
  const sides = {
    handler: through(createHandler),
    block: through(blockHandler),
    bare: (n) => {
      const at = new Date().toISOString();
      const post = { id: ++bareId, title: `tp ${n}`, content, created_at: at, updated_at: at };
      return floor.put(TABLES.small, post);
    },
    // Every create with ID_BLOCK_SIZE=1 first adds 1 to this one item: how fast can that item go?
    counter: () => floor.nextId(TABLES.small),
  };
  const totals = /** @type {Record<Side, Tally>} */ (
    Object.fromEntries(ORDER.map((side) => [side, { done: 0, errors: 0, ms: 0 }]))
  );
  // DynamoDB Local's write path gets faster as its JIT warms up: warm both kinds of write first.
  await saturate(sides.handler, LIMITS.throughputWarmupMs);
  await saturate(sides.bare, LIMITS.throughputWarmupMs);
  /** @type {{ side: string, perSecond: number }[]} */
  const segments = [];
  for (const side of ORDER) {
    const { firstError, ...result } = await saturate(sides[side], LIMITS.throughputSegmentMs);
    segments.push({ side, perSecond: (result.done / result.ms) * 1000 });
    if (firstError) log(`throughput ${side}: ${result.errors} errors, first: ${firstError}`);
    for (const key of /** @type {const} */ (["done", "errors", "ms"]))
      totals[side][key] += result[key];
  }
  const rate = (/** @type {Tally} */ t) => ({ ...t, perSecond: (t.done / t.ms) * 1000 });
  return {
    concurrency: LIMITS.throughputConcurrency,
    idBlockSize: blockSize,
    segments,
    handler: rate(totals.handler),
    bare: rate(totals.bare),
    block: rate(totals.block),
    counter: rate(totals.counter),
  };
}

/** The table rows: the create handler, the counter ADD and ID_BLOCK_SIZE, each vs bare PutItem. */
export function throughputRows(/** @type {ThroughputResult} */ tp) {
  /** @param {string} metric @param {string} name @param {number} perSecond @param {{ min: number }} [target] */
  const againstBarePut = (metric, name, perSecond, target) =>
    ratioRow({ metric, name, value: perSecond, floor: tp.bare.perSecond, unit: "/s", target });
  const at = `at concurrency ${tp.concurrency}`;
  return [
    againstBarePut(
      `create throughput ${at} (vs bare PutItem)`,
      "create-post",
      tp.handler.perSecond,
      { min: 0.5 },
    ),
    againstBarePut(
      `counter ADD/s on the one counter item ${at} (vs bare PutItem)`,
      "bare UpdateItem ADD",
      tp.counter.perSecond,
    ),
    againstBarePut(
      `create throughput, ID_BLOCK_SIZE=${tp.idBlockSize} (vs bare PutItem)`,
      "create-post",
      tp.block.perSecond,
    ),
  ];
}
