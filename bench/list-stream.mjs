// Bench section "the list streamed": the list bundle run by the Lambda Node runtime's own client
// (aws-lambda-ric) over tables of 10,000 and 50,000 posts, each in a new instance: every post
// arrives, and the instance's peak memory grows by at most 4x the list's JSON. The floor is the
// same function over the 20-post table, measured in the same run.
import { createRequire } from "node:module";
import { installRuntimeNode } from "../scripts/runtime-node.mjs";
import { LIMITS, TABLES, benchDir, lambdaEnv, seedTables, staging } from "./context.mjs";
import { log, mb, ratioRow, runNode } from "./util.mjs";

/** The list function's Node options, as serverless.yml gives them. */
const { LIST_NODE_OPTIONS } = createRequire(import.meta.url)("../config/limits.cjs");

/** @typedef {{ posts: number, jsonBytes: number, gzipBytes: number, peakRssBytes: number, initMs: number, firstByteMs: number, totalMs: number, gzipTotalMs: number }} StreamRun */

/**
 * One new instance listing `table` under the runtime client; with `afterWrite`, a post is
 * retitled between its init and its first list, and the peak runs to its gzipped list.
 * @returns {Promise<StreamRun>}
 */
export async function streamInChild(
  /** @type {string} */ endpoint,
  /** @type {string} */ table,
  timeoutMs = 240_000,
  afterWrite = false,
) {
  const args = [`${benchDir}/list-stream-child.mjs`, `${staging}/list-posts`, LIST_NODE_OPTIONS];
  if (afterWrite) args.push(`${staging}/update-post`);
  const env = lambdaEnv(endpoint, table);
  const { report } = await runNode(args, env, timeoutMs, installRuntimeNode());
  return report;
}

/** @type {import("./context.mjs").Section} */
export const listStream = {
  title: `the list streamed: ${LIMITS.list.posts} and ${LIMITS.listStream.posts} posts`,
  async measure({ endpoint, floor }) {
    log(`seeding ${LIMITS.listStream.posts} posts`);
    await seedTables(
      endpoint,
      floor,
      [
        [TABLES.listLarge, 1, LIMITS.listStream.posts, LIMITS.list.contentChars],
        [TABLES.listSmallWritten, 1, 20, LIMITS.list.contentChars],
      ],
      LIMITS.listStream.seedBudgetMs,
    );
    const small = await streamInChild(endpoint, TABLES.listSmall);
    const lists = [
      await streamInChild(endpoint, TABLES.listBig),
      await streamInChild(endpoint, TABLES.listLarge),
    ];
    // Init, a write, a list and a gzipped list, beside the same over the 20-post table.
    const smallWritten = await streamInChild(endpoint, TABLES.listSmallWritten, undefined, true);
    const written = await streamInChild(endpoint, TABLES.listBig, undefined, true);
    return { small, lists, smallWritten, written };
  },
  rows(
    /** @type {{ small: StreamRun, lists: StreamRun[], smallWritten: StreamRun, written: StreamRun }} */ {
      small,
      lists,
      smallWritten,
      written,
    },
  ) {
    const afterWrite = ratioRow(
      `list ${written.posts} streamed, init + a write + a list + a gzipped list: peak RSS growth (vs JSON size)`,
      "list-posts",
      mb(written.peakRssBytes - smallWritten.peakRssBytes),
      mb(written.jsonBytes),
      "MB",
      "<= 3x",
    );
    const perList = lists.flatMap((run) => {
      const name = `list ${run.posts} streamed`;
      const growth = mb(run.peakRssBytes - small.peakRssBytes);
      return [
        ratioRow(
          `${name}: posts received (vs posts stored)`,
          "list-posts",
          run.posts,
          run.posts,
          "posts",
          "info",
        ),
        ratioRow(
          `${name}, new instance: peak RSS growth (vs JSON size, ${mb(run.jsonBytes).toFixed(1)} MB)`,
          "list-posts",
          growth,
          mb(run.jsonBytes),
          "MB",
          "<= 4x",
        ),
        ratioRow(
          `${name}: first byte (vs whole answer)`,
          "list-posts",
          run.firstByteMs,
          run.totalMs,
          "ms",
        ),
        ratioRow(
          `${name}: init, its Scan included (vs first list after it)`,
          "list-posts",
          run.initMs,
          run.totalMs,
          "ms",
        ),
        ratioRow(
          `${name}: gzipped bytes (vs JSON)`,
          "list-posts",
          mb(run.gzipBytes),
          mb(run.jsonBytes),
          "MB",
        ),
      ];
    });
    return [...perList, afterWrite];
  },
};
