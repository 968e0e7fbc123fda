// Bench section "listStream": new instances of the list under the Lambda runtime's own client
// (bench/list-stream-child.mjs) over the 10,000-post table, their peak memory against a new
// instance's over the 20-post table.
import { createRequire } from "node:module";
import { stopIfFails } from "../scripts/lib/cli.mjs";
import { installRuntimeClient } from "../scripts/runtime-client.mjs";
import { installRuntimeNode } from "../scripts/runtime-node.mjs";
import { LIMITS, TABLES, benchDir, lambdaEnv, staging } from "./context.mjs";
import { ratioRow, runNode } from "./util.mjs";

/** @typedef {{ posts: number, jsonBytes: number, gzipBytes: number, peakRssBytes: number, firstByteMs: number, totalMs: number }} StreamRun */

const mb = (/** @type {number} */ bytes) => bytes / (1024 * 1024);
/** The list function's Node options, as serverless.yml gives them (required: tsc skips config/). */
const { LIST_NODE_OPTIONS } = createRequire(import.meta.url)("../config/limits.cjs");

/** @type {import("./context.mjs").Section} */
export const listStream = {
  title: `the list streamed: ${LIMITS.list.posts} posts under the Lambda runtime's client`,
  async measure({ endpoint }) {
    // Built on first use (it needs cmake and a C++ toolchain); without them, one line says so.
    stopIfFails(installRuntimeClient);
    const [child, node] = [`${benchDir}/list-stream-child.mjs`, installRuntimeNode()];
    /** A new instance over `table`; `afterWrite`, a post retitled after its init. */
    const inChild = async (/** @type {string} */ table, afterWrite = false) => {
      const update = afterWrite ? [`${staging}/update-post`] : [];
      const args = [child, `${staging}/list-posts`, LIST_NODE_OPTIONS, ...update];
      const run = await runNode(args, lambdaEnv(endpoint, table), 240_000, node);
      const stored = table === TABLES.listBig ? LIMITS.list.posts : 20;
      if (run.posts !== stored) throw new Error(`${table} streamed ${run.posts} posts`);
      return run;
    };
    const [small, list] = [await inChild(TABLES.listSmall), await inChild(TABLES.listBig)];
    return { small, list, written: await inChild(TABLES.listBig, true) };
  },
  rows(/** @type {Record<"small" | "list" | "written", StreamRun>} */ { small, list, written }) {
    /** @type {(metric: string, value: number, floor: number, unit: string, target?: string) => import("./util.mjs").Row} */
    const row = (metric, ...rest) =>
      ratioRow(`list ${list.posts} streamed${metric}`, "list-posts", ...rest);
    const json = mb(list.jsonBytes);
    const growth = (/** @type {StreamRun} */ run) => mb(run.peakRssBytes - small.peakRssBytes);
    const afterWrite = "init + a write + a list + a gzipped list: peak RSS growth (vs JSON size)";
    return [
      row(", new instance: peak RSS growth (vs JSON size)", growth(list), json, "MB", "<= 4x"),
      row(`, ${afterWrite}`, growth(written), mb(written.jsonBytes), "MB", "<= 3x"),
      row(": first byte (vs whole answer)", list.firstByteMs, list.totalMs, "ms"),
      row(": gzipped bytes (vs JSON)", mb(list.gzipBytes), json, "MB"),
    ];
  },
};
