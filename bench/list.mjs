// Bench sections on the big lists. "listing": the list handler answering buffered in a new
// instance against a bare paginated Scan, each in a fresh process (bench/child.mjs), alternating
// which goes first. "the list streamed": the list bundle run by the Lambda Node runtime's own
// client (bench/list-stream-child.mjs) over 10,000 and 50,000 posts, each in a new instance:
// every post arrives, and the peak memory grows by at most 4x the JSON; the floor is the same
// function over the 20-post table, measured in the same run.
import { createRequire } from "node:module";
import { installRuntimeNode } from "../scripts/runtime-node.mjs";
import { apiEvent } from "../tests/helpers/api-event.mjs";
import { LIMITS, TABLES, benchDir, lambdaEnv, seedTables, staging } from "./context.mjs";
import { log, mb, medians, rounds, runNode } from "./util.mjs";

/** @typedef {import("./util.mjs").RowSpec} RowSpec */
/** @typedef {{ whole: number, init: number, items: number, responseBytes: number, wireBytes: number, rssGrowth: number, heapGrowth: number, liveGrowth: number }} ListRun */
/** @typedef {{ posts: number, jsonBytes: number, gzipBytes: number, peakRssBytes: number, initMs: number, firstByteMs: number, totalMs: number, gzipTotalMs: number }} StreamRun */

/** The list function's Node options, as serverless.yml gives them. */
const { LIST_NODE_OPTIONS } = createRequire(import.meta.url)("../config/limits.cjs");

/**
 * One list of the big table in a fresh process, through the list handler (gzipped, as 10 MB is
 * over Lambda's 6 MB answer) or as a bare Scan through the floor; `flags` go to its Node.
 * @param {"handler" | "scan"} side @param {Record<string, string>} env @returns {Promise<ListRun>}
 */
export async function listInChild(side, env, flags = /** @type {string[]} */ ([])) {
  const bundle = `${staging}/${side === "handler" ? "list-posts" : "floor"}/index.mjs`;
  const event = apiEvent({ method: "GET", headers: { "accept-encoding": "gzip" } });
  const request = side === "handler" ? JSON.stringify(event) : "scan";
  const args = ["--expose-gc", ...flags, `${benchDir}/child.mjs`, bundle, request];
  const { report } = await runNode(args, env, LIMITS.childTimeoutMs * 2);
  if (side === "handler" && report.status !== 200) throw new Error(`list: ${report.status}`);
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
  rows(/** @type {{ rounds: number, handler: ListRun, scan: ListRun }} */ r) {
    const { handler, scan } = r;
    const [rss, json] = [mb(handler.rssGrowth), mb(handler.responseBytes)];
    const list = `list ${LIMITS.list.posts}`;
    const first = `, new instance: init + first list (vs bundle load + bare Scan, median of ${r.rounds})`;
    const vsJson = "(vs JSON response size)";
    const [name, held] = ["list-posts", "bare Scan, after GC"];
    /** @type {RowSpec[]} */
    const rows = [
      [first, name, handler.whole, scan.whole, "ms", "<= 1.2x"],
      [", new instance: init (vs whole)", name, handler.init, handler.whole, "ms"],
      [` peak RSS growth ${vsJson}`, name, rss, json, "MB", "<= 2x"],
      [` peak heap growth ${vsJson}`, name, mb(handler.heapGrowth), json, "MB"],
      [` items held by a bare Scan ${vsJson}`, held, mb(scan.liveGrowth), json, "MB"],
      [" peak RSS growth (vs bare Scan's)", name, rss, mb(scan.rssGrowth), "MB"],
    ];
    return rows.map(([metric, ...rest]) => [`${list}${metric}`, ...rest]);
  },
};

/**
 * One new instance listing `table` under the runtime client; with `afterWrite`, a post is
 * retitled between its init and its first list, and the peak runs to its gzipped list.
 * @param {string} endpoint @param {string} table @returns {Promise<StreamRun>}
 */
async function streamInChild(endpoint, table, afterWrite = false) {
  const args = [`${benchDir}/list-stream-child.mjs`, `${staging}/list-posts`, LIST_NODE_OPTIONS];
  if (afterWrite) args.push(`${staging}/update-post`);
  const env = lambdaEnv(endpoint, table);
  return (await runNode(args, env, LIMITS.listStream.childTimeoutMs, installRuntimeNode())).report;
}

/** @type {import("./context.mjs").Section} */
export const listStream = {
  title: `the list streamed: ${LIMITS.list.posts} and ${LIMITS.listStream.posts} posts`,
  async measure({ endpoint, floor }) {
    const { list: big, listStream: large } = LIMITS;
    log(`seeding ${large.posts} posts`);
    const seeds = /** @type {[string, number, number, number][]} */ ([
      [TABLES.listLarge, 1, large.posts, big.contentChars],
      [TABLES.listSmallWritten, 1, 20, big.contentChars],
    ]);
    await seedTables(endpoint, floor, seeds, large.seedBudgetMs);
    return {
      small: await streamInChild(endpoint, TABLES.listSmall),
      lists: [
        await streamInChild(endpoint, TABLES.listBig),
        await streamInChild(endpoint, TABLES.listLarge),
      ],
      // Init, a write, a list and a gzipped list, beside the same over the 20-post table.
      smallWritten: await streamInChild(endpoint, TABLES.listSmallWritten, true),
      written: await streamInChild(endpoint, TABLES.listBig, true),
    };
  },
  rows(
    /** @type {Record<"small" | "smallWritten" | "written", StreamRun> & { lists: StreamRun[] }} */ r,
  ) {
    const [written, json] = [r.written, (/** @type {StreamRun} */ run) => mb(run.jsonBytes)];
    const perList = r.lists.flatMap((run, i) => {
      const stored = i ? LIMITS.listStream.posts : LIMITS.list.posts;
      const growth = `, new instance: peak RSS growth (vs JSON size, ${json(run).toFixed(1)} MB)`;
      /** @type {[string, number, number, string, string?][]} */
      const rows = [
        [": posts received (vs posts stored)", run.posts, stored, "posts"],
        [growth, mb(run.peakRssBytes - r.small.peakRssBytes), json(run), "MB", "<= 4x"],
        [": first byte (vs whole answer)", run.firstByteMs, run.totalMs, "ms"],
        [": init, its Scan included (vs first list after it)", run.initMs, run.totalMs, "ms"],
        [": gzipped bytes (vs JSON)", mb(run.gzipBytes), json(run), "MB"],
      ];
      const name = `list ${run.posts} streamed`;
      return rows.map(
        ([metric, ...rest]) => /** @type {RowSpec} */ ([`${name}${metric}`, "list-posts", ...rest]),
      );
    });
    const afterWrite =
      "streamed, init + a write + a list + a gzipped list: peak RSS growth (vs JSON size)";
    const growth = mb(written.peakRssBytes - r.smallWritten.peakRssBytes);
    return [
      ...perList,
      [`list ${written.posts} ${afterWrite}`, "list-posts", growth, json(written), "MB", "<= 3x"],
    ];
  },
};
