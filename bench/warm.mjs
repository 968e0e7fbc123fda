// Bench section "warm overhead": each handler bundle in this process against the floor's calls
// for the same operation, alternating which side goes first.
import { LIMITS, handlerCases, importFloor, importHandler, lambdaEnv } from "./context.mjs";
import { expectStatus, quantile, ratioRow, rounds, timed } from "./util.mjs";

/** @typedef {{ p50: number, p99: number }} Quantiles */
/** @typedef {{ iterations: number, handler: Quantiles, direct: Quantiles }} WarmSummary */

const quantiles = (/** @type {number[]} */ ms) => ({
  p50: quantile(ms, 0.5),
  p99: quantile(ms, 0.99),
});

/**
 * p50 and p99 of a handler and of its floor. The floor is a copy of its own, so both sides' SDK
 * code has been through the same number of calls when the JIT compiles it.
 * @param {string} endpoint @param {import("./context.mjs").Handler} handler
 * @param {import("./context.mjs").HandlerCase} spec @param {string} name
 */
async function measureOne(endpoint, handler, spec, name) {
  const { warmup, iterations, budgetMsPerHandler: budgetMs } = LIMITS.warm;
  const floor = await importFloor(endpoint, `for=${name}`);
  const ms = { handler: /** @type {number[]} */ ([]), direct: /** @type {number[]} */ ([]) };
  /** One call of one side, timed; the handler's request is built before the clock starts. */
  const time = async (/** @type {keyof ms} */ side, /** @type {number} */ i) => {
    const event = side === "handler" ? spec.event(i) : undefined;
    const took = await timed(() =>
      event ? expectStatus(handler, event, spec.status) : spec.floor(floor, i),
    );
    if (i >= warmup) ms[side].push(took);
  };
  try {
    const done = await rounds(warmup + iterations, budgetMs, ["handler", "direct"], time);
    const [handlerMs, directMs] = [quantiles(ms.handler), quantiles(ms.direct)];
    return { iterations: Math.max(0, done - warmup), handler: handlerMs, direct: directMs };
  } finally {
    floor.destroy();
  }
}

/** @type {import("./context.mjs").Section} */
export const warm = {
  title: "warm overhead",
  /** Every handler; they stay loaded and warm in `ctx.handlers` (throughput reuses the create). */
  async measure(ctx) {
    /** @type {Record<string, WarmSummary>} */
    const summary = {};
    for (const [name, spec] of Object.entries(handlerCases("warm"))) {
      const handler = await importHandler(name, lambdaEnv(ctx.endpoint, spec.table));
      ctx.handlers[name] = handler;
      summary[name] = await measureOne(ctx.endpoint, handler, spec, name);
    }
    return summary;
  },
  rows(/** @type {Record<string, WarmSummary>} */ summary) {
    /** @param {keyof Quantiles} q @param {(w: WarmSummary) => string} metric */
    const rows = (q, metric, target = "info") =>
      Object.entries(summary).map(([name, w]) =>
        ratioRow(metric(w), name, w.handler[q], w.direct[q], "ms", target),
      );
    return [
      ...rows("p50", (w) => `warm p50 (vs direct SDK, n=${w.iterations})`, "<= 1.1x"),
      ...rows("p99", () => "warm p99 (vs direct SDK)"),
    ];
  },
};
