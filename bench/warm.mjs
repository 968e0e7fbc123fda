// Bench section "warm overhead": each handler bundle in this process against the floor's calls
// for the same operation, alternating which side goes first.
import { handlerNames } from "../scripts/build.mjs";
import {
  LIMITS,
  TABLES,
  WARM_DELETE_BASE,
  handlerCases,
  importFloor,
  importHandler,
  lambdaEnv,
} from "./context.mjs";
import { bounded, filler, quantile, ratioRow } from "./util.mjs";

/** @typedef {import("./context.mjs").Floor} Floor */
/** @typedef {import("./context.mjs").Handler} Handler */
/** @typedef {{ iterations: number, handler: { p50: number, p99: number }, direct: { p50: number, p99: number } }} WarmSummary */

/** @type {Record<string, (floor: Floor, i: number, deleteId: () => number) => Promise<unknown>>} */
const FLOOR_CALLS = {
  "create-post": (floor, i) =>
    floor.create(TABLES.small, { title: `warm ${i}`, content: filler(i, 200) }),
  "delete-post": (floor, _i, deleteId) => floor.remove(TABLES.small, deleteId()),
  "get-post": (floor) => floor.get(TABLES.small, 1),
  "list-posts": (floor) => floor.list(TABLES.listSmall),
  "update-post": (floor, i) => floor.update(TABLES.small, 3, { title: `warm ${i}` }),
};

/**
 * p50 and p99 of both sides per handler, and the handlers, loaded and warm (the throughput
 * section reuses the create handler). Each handler gets its own copy of the floor module, so
 * both sides' SDK code has been through the same number of calls when the JIT compiles it.
 * @param {string} endpoint
 * @returns {Promise<{ summary: Record<string, WarmSummary>, handlers: Record<string, Handler> }>}
 */
export async function measureWarm(endpoint) {
  // Handler and floor deletes take turns on one run of seeded posts.
  let lastDeleted = WARM_DELETE_BASE;
  const deleteId = () => ++lastDeleted;
  const cases = handlerCases("warm", deleteId);
  /** @type {Record<string, Handler>} */
  const handlers = {};
  /** @type {Record<string, WarmSummary>} */
  const summary = {};
  for (const name of handlerNames) {
    const spec = cases[name];
    const floorCall = FLOOR_CALLS[name];
    if (!spec || !floorCall) continue;
    const handler = await importHandler(name, lambdaEnv(endpoint, spec.table));
    handlers[name] = handler;
    const floor = await importFloor(endpoint, `for=${name}`);
    /** @type {{ handler: number[], direct: number[] }} */
    const ms = { handler: [], direct: [] };
    /** @param {"handler" | "direct"} side @param {number} i @param {() => Promise<unknown>} run */
    const timed = async (side, i, run) => {
      const started = performance.now();
      await run();
      if (i >= LIMITS.warmWarmup) ms[side].push(performance.now() - started);
    };
    try {
      const total = LIMITS.warmWarmup + LIMITS.warmIterations;
      const iterations = await bounded(total, LIMITS.warmBudgetMsPerHandler, async (i) => {
        const event = spec.event(i);
        const viaHandler = () =>
          timed("handler", i, async () => {
            const response = await handler(event);
            if (response.statusCode !== spec.status) {
              throw new Error(`warm ${name} answered ${response.statusCode}: ${response.body}`);
            }
          });
        const viaFloor = () => timed("direct", i, () => floorCall(floor, i, deleteId));
        for (const side of i % 2 === 0 ? [viaHandler, viaFloor] : [viaFloor, viaHandler])
          await side();
      });
      const stats = (/** @type {number[]} */ v) => ({
        p50: quantile(v, 0.5),
        p99: quantile(v, 0.99),
      });
      summary[name] = {
        iterations: Math.max(0, iterations - LIMITS.warmWarmup),
        handler: stats(ms.handler),
        direct: stats(ms.direct),
      };
    } finally {
      floor.destroy();
    }
  }
  return { summary, handlers };
}

/** The table rows: each handler's p50 and p99 against the floor's. */
export function warmRows(/** @type {Record<string, WarmSummary>} */ summary) {
  const entries = Object.entries(summary);
  /** @param {"p50" | "p99"} q @param {(w: WarmSummary) => string} metric @param {{ max: number }} [target] */
  const rows = (q, metric, target) =>
    entries.map(([name, w]) =>
      ratioRow({
        metric: metric(w),
        name,
        value: w.handler[q],
        floor: w.direct[q],
        unit: "ms",
        target,
      }),
    );
  return [
    ...rows("p50", (w) => `warm p50 (vs direct SDK, n=${w.iterations})`, { max: 1.1 }),
    ...rows("p99", () => "warm p99 (vs direct SDK)"),
  ];
}
