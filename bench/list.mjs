// Bench section "listing the big table": the list handler against a bare paginated Scan, each in a
// fresh child process (bench/list-child.mjs), alternating which goes first.
import { LIMITS, TABLES, benchDir, lambdaEnv, staging } from "./context.mjs";
import { mb, medians, ratioRow, rounds, runNode } from "./util.mjs";

/** @typedef {{ ms: number, initMs: number, items: number, responseBytes: number, wireBytes: number, rssGrowth: number, heapGrowth: number, liveGrowth: number }} ListRun */

/**
 * One list of the big table in a fresh process, through the list handler or as a bare Scan through
 * the floor; `flags` go to that process's Node.
 * @param {"handler" | "scan"} side @param {Record<string, string>} env @returns {Promise<ListRun>}
 */
export async function listInChild(side, env, flags = /** @type {string[]} */ ([])) {
  const bundle = `${staging}/${side === "handler" ? "list-posts" : "floor"}/index.mjs`;
  const args = ["--expose-gc", ...flags, `${benchDir}/list-child.mjs`, side, bundle];
  const { report } = await runNode(args, env, LIMITS.childTimeoutMs * 2);
  if (report.items !== LIMITS.list.posts) throw new Error(`list ${side}: ${report.items} posts`);
  return report;
}

/** @type {import("./context.mjs").Section} */
export const list = {
  title: `listing ${LIMITS.list.posts} posts`,
  async measure({ endpoint }) {
    const env = lambdaEnv(endpoint, TABLES.listBig);
    /** @type {{ handler: ListRun[], scan: ListRun[] }} */
    const runs = { handler: [], scan: [] };
    const { runsPerSide, budgetMs } = LIMITS.list;
    const sides = /** @type {const} */ (["handler", "scan"]);
    const done = await rounds(runsPerSide, budgetMs, [...sides], async (side) => {
      runs[side].push(await listInChild(side, env));
    });
    return { rounds: done, handler: medians(runs.handler), scan: medians(runs.scan) };
  },
  /** Time against the Scan's, memory against the response's size and the Scan's. */
  rows(/** @type {{ rounds: number, handler: ListRun, scan: ListRun }} */ { handler, scan, ...r }) {
    const [list, vsResponse] = [`list ${LIMITS.list.posts}`, "(vs JSON response size)"];
    const [rss, response] = [mb(handler.rssGrowth), mb(handler.responseBytes)];
    /** @param {string} metric @param {number} value @param {number} floor */
    const row = (metric, value, floor, target = "info", name = "list-posts") =>
      ratioRow(`${list} ${metric}`, name, value, floor, "MB", target);
    const time = `${list}, new instance: init + first list (vs bundle load + bare Scan, median of ${r.rounds})`;
    const held = `items held by a bare Scan ${vsResponse}`;
    return [
      ratioRow(time, "list-posts", handler.ms, scan.ms, "ms", "<= 1.2x"),
      ratioRow(
        `${list}, new instance: init (vs whole)`,
        "list-posts",
        handler.initMs,
        handler.ms,
        "ms",
      ),
      row(`peak RSS growth ${vsResponse}`, rss, response, "<= 2x"),
      row(`peak heap growth ${vsResponse}`, mb(handler.heapGrowth), response),
      row(held, mb(scan.liveGrowth), response, "info", "bare Scan, after GC"),
      row("peak RSS growth (vs bare Scan's)", rss, mb(scan.rssGrowth)),
    ];
  },
};
