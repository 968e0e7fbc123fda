// Bench section "warm overhead": each handler bundle in this process against the same SDK calls
// made directly, alternating which side goes first.
import { handlerNames } from "../scripts/build.mjs";
import { LIMITS, importDirect, importHandler, lambdaEnv } from "./context.mjs";
import { handlerCases } from "./cases.mjs";
import { TABLES, WARM_DELETE_BASE } from "./tables.mjs";
import { bounded, filler, quantile, ratioRow } from "./util.mjs";

/** @typedef {import("./context.mjs").Direct} Direct */
/** @typedef {import("./context.mjs").Handler} Handler */
/** @typedef {{ iterations: number, handler: { p50: number, p99: number }, direct: { p50: number, p99: number } }} WarmSummary */

/**
 * The baseline of each handler: the calls its repository method makes, on the same tables.
 * @type {Record<string, (direct: Direct, i: number, deleteId: () => number) => Promise<unknown>>}
 */
const DIRECT_CALLS = {
  "create-post": (direct, i) => {
    const now = () => new Date().toISOString();
    return direct.create(TABLES.small, {
      title: `warm ${i}`,
      content: filler(i, 200),
      created_at: now(),
      updated_at: now(),
    });
  },
  "delete-post": (direct, _i, deleteId) => direct.remove(TABLES.small, deleteId()),
  "get-post": (direct) => direct.get(TABLES.small, 1),
  "list-posts": (direct) => direct.scanAll(TABLES.listSmall),
  "update-post": (direct, i) => direct.update(TABLES.small, 3, { title: `warm ${i}` }),
};

/**
 * p50 and p99 of both sides per handler, and the handlers, loaded and warm (the throughput
 * section reuses the create handler). Each handler gets its own copy of the baseline module, so
 * both sides' SDK code has been through the same number of calls when the JIT compiles it.
 * @param {string} endpoint
 * @returns {Promise<{ summary: Record<string, WarmSummary>, handlers: Record<string, Handler> }>}
 */
export async function measureWarm(endpoint) {
  // Handler and baseline deletes take turns on one run of seeded posts.
  let lastDeleted = WARM_DELETE_BASE;
  const deleteId = () => ++lastDeleted;
  const cases = handlerCases("warm", deleteId);
  /** @type {Record<string, Handler>} */
  const handlers = {};
  for (const name of handlerNames) {
    const table = cases[name]?.table ?? TABLES.small;
    handlers[name] = await importHandler(name, lambdaEnv(endpoint, table));
  }
  /** @type {Record<string, WarmSummary>} */
  const summary = {};
  for (const name of handlerNames) {
    const spec = cases[name];
    const handler = handlers[name];
    const directCall = DIRECT_CALLS[name];
    if (!spec || !handler || !directCall) continue;
    const direct = await importDirect(endpoint, `for=${name}`);
    /** @type {number[]} */
    const handlerMs = [];
    /** @type {number[]} */
    const directMs = [];
    const total = LIMITS.warmWarmup + LIMITS.warmIterations;
    try {
      const iterations = await bounded(total, LIMITS.warmBudgetMsPerHandler, async (i) => {
        const event = spec.event(i);
        const viaHandler = async () => {
          const started = performance.now();
          const response = await handler(event);
          const ms = performance.now() - started;
          if (response.statusCode !== spec.status) {
            throw new Error(`warm ${name} answered ${response.statusCode}: ${response.body}`);
          }
          if (i >= LIMITS.warmWarmup) handlerMs.push(ms);
        };
        const viaSdk = async () => {
          const started = performance.now();
          await directCall(direct, i, deleteId);
          if (i >= LIMITS.warmWarmup) directMs.push(performance.now() - started);
        };
        for (const side of i % 2 === 0 ? [viaHandler, viaSdk] : [viaSdk, viaHandler]) await side();
      });
      summary[name] = {
        iterations: Math.max(0, iterations - LIMITS.warmWarmup),
        handler: { p50: quantile(handlerMs, 0.5), p99: quantile(handlerMs, 0.99) },
        direct: { p50: quantile(directMs, 0.5), p99: quantile(directMs, 0.99) },
      };
    } finally {
      direct.destroy();
    }
  }
  return { summary, handlers };
}

/** The table rows: each handler's p50 and p99 against the direct SDK calls'. */
export function warmRows(/** @type {Record<string, WarmSummary>} */ summary) {
  const entries = Object.entries(summary);
  return [
    ...entries.map(([name, w]) =>
      ratioRow({
        metric: `warm p50 (vs direct SDK, n=${w.iterations})`,
        name,
        value: w.handler.p50,
        floor: w.direct.p50,
        unit: "ms",
        target: { max: 1.1 },
      }),
    ),
    ...entries.map(([name, w]) =>
      ratioRow({
        metric: "warm p99 (vs direct SDK)",
        name,
        value: w.handler.p99,
        floor: w.direct.p99,
        unit: "ms",
      }),
    ),
  ];
}
