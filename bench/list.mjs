// Bench section "listing the big table": the list handler against a bare paginated Scan, each in a
// fresh child process (bench/list-child.mjs), alternating which goes first.
import { LIMITS, TABLES, benchDir, lambdaEnv, staging } from "./context.mjs";
import { medians, ratioRow, rounds, runNode } from "./util.mjs";

/** @typedef {{ ms: number, items: number, responseBytes: number, wireBytes: number, rssGrowth: number, heapGrowth: number, liveGrowth: number }} ListRun */

/** Each side's bundle. @type {Record<string, string>} */
const BUNDLES = { handler: "list-posts", scan: "floor" };
const mb = (/** @type {number} */ bytes) => bytes / (1024 * 1024);

/** @type {import("./context.mjs").Section} */
export const list = {
  title: `listing ${LIMITS.list.posts} posts`,
  /** Medians of both sides' time and memory, and of the handler's response size. */
  async measure({ endpoint }) {
    const { posts, runsPerSide, budgetMs } = LIMITS.list;
    const env = lambdaEnv(endpoint, TABLES.listBig);
    /** @type {Record<string, ListRun[]>} */
    const runs = {};
    const done = await rounds(runsPerSide, budgetMs, Object.keys(BUNDLES), async (side) => {
      const bundle = `${staging}/${BUNDLES[side]}/index.mjs`;
      const args = ["--expose-gc", `${benchDir}/list-child.mjs`, side, bundle];
      const { report } = await runNode(args, env, LIMITS.childTimeoutMs * 2);
      if (report.items !== posts) throw new Error(`list ${side} returned ${report.items} posts`);
      (runs[side] ??= []).push(report);
    });
    return { rounds: done, handler: medians(runs.handler ?? []), scan: medians(runs.scan ?? []) };
  },
  /**
   * Time against the Scan's, memory against the response's size and the Scan's.
   * @param {{ rounds: number, handler: ListRun, scan: ListRun }} result
   */
  rows({ rounds: count, handler, scan }) {
    /** @param {string} metric @param {string} name @param {number} value @param {number} floor */
    const row = (metric, name, value, floor, unit = "MB", target = "info") =>
      ratioRow({ metric: `list ${LIMITS.list.posts} ${metric}`, name, value, floor, unit, target });
    const [h, response, vsResponse] = [
      "list-posts",
      mb(handler.responseBytes),
      "(vs JSON response size)",
    ];
    return [
      row(
        `time (vs bare paginated Scan, median of ${count})`,
        h,
        handler.ms,
        scan.ms,
        "ms",
        "<= 1.2x",
      ),
      row(`peak RSS growth ${vsResponse}`, h, mb(handler.rssGrowth), response, "MB", "<= 2x"),
      row(`peak heap growth ${vsResponse}`, h, mb(handler.heapGrowth), response),
      row(
        `items held by a bare Scan ${vsResponse}`,
        "bare Scan, after GC",
        mb(scan.liveGrowth),
        response,
      ),
      row("peak RSS growth (vs bare Scan's)", h, mb(handler.rssGrowth), mb(scan.rssGrowth)),
    ];
  },
};
