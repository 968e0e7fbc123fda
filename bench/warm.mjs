// Bench section "warm overhead": each handler bundle in this process against the floor's calls
// for the same operation, alternating which side goes first.
import { LIMITS, handlerCases, importFloor, importHandler, lambdaEnv } from "./context.mjs";
import { quantile, ratioRow, rounds } from "./util.mjs";

/** @typedef {{ p50: number, p99: number }} Quantiles */
/** @typedef {{ iterations: number, handler: Quantiles, direct: Quantiles }} WarmSummary */

const quantiles = (/** @type {number[]} */ ms) => ({
  p50: quantile(ms, 0.5),
  p99: quantile(ms, 0.99),
});

/** @type {import("./context.mjs").Section} */
export const warm = {
  title: "warm overhead",
  /**
   * p50 and p99 of both sides per handler. The handlers stay loaded and warm in `ctx.handlers` (the
   * throughput section reuses the create handler). Each handler gets its own copy of the floor
   * module, so both sides' SDK code has been through the same number of calls when the JIT compiles it.
   */
  async measure(ctx) {
    const { warmup, iterations, budgetMsPerHandler } = LIMITS.warm;
    /** @type {Record<string, WarmSummary>} */
    const summary = {};
    for (const [name, spec] of Object.entries(handlerCases("warm"))) {
      const handler = await importHandler(name, lambdaEnv(ctx.endpoint, spec.table));
      ctx.handlers[name] = handler;
      const floor = await importFloor(ctx.endpoint, `for=${name}`);
      const ms = { handler: /** @type {number[]} */ ([]), direct: /** @type {number[]} */ ([]) };
      /** One call of one side, timed; the handler's request is built before the clock starts. */
      const timed = async (/** @type {keyof ms} */ side, /** @type {number} */ i) => {
        const event = side === "handler" ? spec.event(i) : undefined;
        const started = performance.now();
        if (event) {
          const { statusCode, body } = await handler(event);
          if (statusCode !== spec.status) throw new Error(`warm ${name}: ${statusCode} ${body}`);
        } else await spec.floor(floor, i);
        if (i >= warmup) ms[side].push(performance.now() - started);
      };
      try {
        const done = await rounds(
          warmup + iterations,
          budgetMsPerHandler,
          ["handler", "direct"],
          timed,
        );
        const [handlerMs, directMs] = [quantiles(ms.handler), quantiles(ms.direct)];
        summary[name] = {
          iterations: Math.max(0, done - warmup),
          handler: handlerMs,
          direct: directMs,
        };
      } finally {
        floor.destroy();
      }
    }
    return summary;
  },
  /** Each handler's p50 and p99 against the floor's. */
  rows(/** @type {Record<string, WarmSummary>} */ summary) {
    /** @param {keyof Quantiles} q @param {(w: WarmSummary) => string} metric */
    const rows = (q, metric, target = "info") =>
      Object.entries(summary).map(([name, w]) => {
        const [value, floor] = [w.handler[q], w.direct[q]];
        return ratioRow({ metric: metric(w), name, value, floor, unit: "ms", target });
      });
    return [
      ...rows("p50", (w) => `warm p50 (vs direct SDK, n=${w.iterations})`, "<= 1.1x"),
      ...rows("p99", () => "warm p99 (vs direct SDK)"),
    ];
  },
};
