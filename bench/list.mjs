// Bench section "listing the big table": the list handler against a bare paginated Scan, each in a
// fresh child process (bench/list-child.mjs), alternating which goes first.
import { LIMITS, TABLES, benchDir, lambdaEnv, mb, staging } from "./context.mjs";
import { bounded, median, ratioRow, runNode } from "./util.mjs";

/** @typedef {{ ms: number, items: number, bytes: number, wireBytes: number, rssGrowth: number, heapGrowth: number, liveGrowth: number }} ListRun */
/** @typedef {Awaited<ReturnType<typeof measureList>>} ListResult */

/** Medians of both sides' time and memory, and the handler's response size. */
export async function measureList(/** @type {string} */ endpoint) {
  /** @type {{ handler: ListRun[], scan: ListRun[] }} */
  const runs = { handler: [], scan: [] };
  const args = {
    handler: [`${benchDir}/list-child.mjs`, "handler", `${staging}/list-posts/index.mjs`],
    scan: [
      `${benchDir}/list-child.mjs`,
      "scan",
      `${staging}/floor/index.mjs`,
      endpoint,
      TABLES.listBig,
    ],
  };
  const env = lambdaEnv(endpoint, TABLES.listBig);
  const runOne = async (/** @type {"handler" | "scan"} */ mode) => {
    const run = await runNode(["--expose-gc", ...args[mode]], env, LIMITS.childTimeoutMs * 2);
    const report = JSON.parse(run.lines[0] ?? "{}");
    if (report.items !== LIMITS.listPosts) {
      throw new Error(`list ${mode} returned ${report.items} posts, not ${LIMITS.listPosts}`);
    }
    runs[mode].push(report);
  };
  const rounds = await bounded(LIMITS.listRunsPerSide, LIMITS.listBudgetMs, async (round) => {
    for (const mode of round % 2
      ? /** @type {const} */ (["scan", "handler"])
      : /** @type {const} */ (["handler", "scan"])) {
      await runOne(mode);
    }
  });
  const pick = (
    /** @type {ListRun[]} */ sideRuns,
    /** @type {Exclude<keyof ListRun, "items">} */ key,
  ) => median(sideRuns.map((r) => r[key]));
  const medians = (/** @type {ListRun[]} */ side) => ({
    ms: pick(side, "ms"),
    responseBytes: pick(side, "bytes"),
    wireBytes: pick(side, "wireBytes"),
    rssGrowth: pick(side, "rssGrowth"),
    heapGrowth: pick(side, "heapGrowth"),
    liveGrowth: pick(side, "liveGrowth"),
  });
  return { rounds, handler: medians(runs.handler), scan: medians(runs.scan) };
}

/** The table rows: time against the Scan's, memory against the response's size and the Scan's. */
export function listRows(/** @type {ListResult} */ { rounds, handler, scan }) {
  const list = `list ${LIMITS.listPosts}`;
  const response = mb(handler.responseBytes);
  /** @param {string} metric @param {string} name @param {number} value @param {number} floor @param {{ max: number }} [target] */
  const row = (metric, name, value, floor, target) =>
    ratioRow({ metric: `${list} ${metric}`, name, value, floor, unit: "MB", target });
  return [
    ratioRow({
      metric: `${list} time (vs bare paginated Scan, median of ${rounds})`,
      name: "list-posts",
      value: handler.ms,
      floor: scan.ms,
      unit: "ms",
      target: { max: 1.2 },
    }),
    row("peak RSS growth (vs JSON response size)", "list-posts", mb(handler.rssGrowth), response, {
      max: 2,
    }),
    row("peak heap growth (vs JSON response size)", "list-posts", mb(handler.heapGrowth), response),
    row(
      "items held by a bare Scan (vs JSON response size)",
      "bare Scan, after GC",
      mb(scan.liveGrowth),
      response,
    ),
    row(
      "peak RSS growth (vs bare Scan's)",
      "list-posts",
      mb(handler.rssGrowth),
      mb(scan.rssGrowth),
    ),
  ];
}
