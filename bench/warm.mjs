// Bench section "warm overhead": each handler bundle, loaded in this process, against the floor's
// calls for the same operation, alternating which side goes first.
import { apiEvent } from "../tests/helpers/api-event.mjs";
import { LIMITS, REQUESTS, floorCall, importFloor, importHandler, lambdaEnv } from "./context.mjs";
import { statusOf, tableOf } from "./context.mjs";
import { median, ratioRow, rounds, timed } from "./util.mjs";

/** @type {import("./context.mjs").Section} */
export const warm = {
  title: "warm overhead",
  /**
   * The median of every handler and of its floor. Each floor is a copy of its own, so both sides'
   * SDK code has been through the same number of calls when the JIT compiles it.
   */
  async measure({ endpoint }) {
    const { warmup, iterations: count, budgetMsPerHandler: budgetMs } = LIMITS.warm;
    /** @type {Record<string, { iterations: number, p50: number, floorP50: number }>} */
    const summary = {};
    for (const [name, request] of Object.entries(REQUESTS)) {
      const handler = await importHandler(name, lambdaEnv(endpoint, tableOf(name)));
      const floor = await importFloor(endpoint, `for=${name}`);
      const times = { handler: /** @type {number[]} */ ([]), direct: /** @type {number[]} */ ([]) };
      const sides = /** @type {const} */ (["handler", "direct"]);
      const done = await rounds(warmup + count, budgetMs, [...sides], async (side, i) => {
        // The handler's event is built before the clock starts.
        const ask = request(i);
        const event = side === "handler" ? apiEvent(ask) : undefined;
        const took = await timed(async () => {
          if (!event) return floorCall(floor, tableOf(name), ask);
          const { statusCode, body } = await handler(event);
          if (statusCode !== statusOf(ask)) throw new Error(`${name}: ${statusCode} ${body}`);
        });
        if (i >= warmup) times[side].push(took);
      });
      floor.destroy();
      const iterations = Math.max(0, done - warmup);
      summary[name] = { iterations, p50: median(times.handler), floorP50: median(times.direct) };
    }
    return summary;
  },
  rows(/** @type {Record<string, any>} */ summary) {
    return Object.entries(summary).map(([name, w]) => {
      const metric = `warm p50 (vs direct SDK, n=${w.iterations})`;
      return ratioRow(metric, name, w.p50, w.floorP50, "ms", "<= 1.1x");
    });
  },
};
