// `npm run bench`: builds the production bundles, starts its own in-memory DynamoDB Local and
// measures each handler beside a floor: bundle size, cold start, warm overhead, listing 10,000
// posts, create throughput. Prints a table of ratios and writes bench/results.json. Every loop is
// bounded by a count and a time budget; DynamoDB Local is stopped however the run ends.
import { rm, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import * as esbuild from "esbuild";
import { startDynamoDbLocal } from "../scripts/dynamodb-local.mjs";
import { buildBundles, bundleRows, withoutPluginsNote } from "./bundles.mjs";
import { measureColdStart, coldStartRows } from "./cold-start.mjs";
import { LIMITS, benchDir, benchStarted, importFloor, log, staging } from "./context.mjs";
import { listRows, measureList } from "./list.mjs";
import { measureListCache } from "./list-cache.mjs";
import { prepareTables } from "./tables.mjs";
import { measureThroughput, throughputRows } from "./throughput.mjs";
import { formatTable, runningChildren } from "./util.mjs";
import { measureWarm, warmRows } from "./warm.mjs";

// Lambda runs Node 22+; the SDK's notice about Node 20 is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

/** @type {Promise<{ endpoint: string, pid?: number, stop(): Promise<void> }> | undefined} */
let db;
/** @type {Promise<void> | undefined} */
let cleaning;

/** Ends child processes and DynamoDB Local (even one still starting), removes the staging folder. */
const cleanup = () =>
  (cleaning ??= (async () => {
    for (const child of runningChildren) child.kill("SIGKILL");
    await (await db?.catch(() => undefined))?.stop();
    await esbuild.stop(); // it would otherwise go on writing into the folder being removed
    await rm(staging, { recursive: true, force: true });
  })());

let interrupted = false;
for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) {
  process.once(signal, () => {
    interrupted = true;
    log(`${signal}: stopping`);
    void cleanup().finally(() => process.exit(130));
  });
}

/** Runs every section in turn; returns their results and the table rows. */
async function main() {
  log("building bundles");
  const bundles = await buildBundles();
  log("starting DynamoDB Local");
  if (cleaning) throw new Error("not starting DynamoDB Local: the bench is stopping");
  const { endpoint } = await (db = startDynamoDbLocal());
  const floor = await importFloor(endpoint);
  try {
    await prepareTables(endpoint, floor);
    log("cold start");
    const cold = await measureColdStart(endpoint);
    log("warm overhead");
    const warm = await measureWarm(endpoint);
    log(`listing ${LIMITS.listPosts} posts`);
    const list = await measureList(endpoint);
    // After the plain list: it retitles post 1 of the 10,000-post table.
    const listCache = await measureListCache(endpoint, floor);
    log("create throughput");
    const create = /** @type {import("./context.mjs").Handler} */ (warm.handlers["create-post"]);
    const throughput = await measureThroughput(endpoint, floor, create);
    const rows = [
      ...bundleRows(bundles),
      ...coldStartRows(cold),
      ...warmRows(warm.summary),
      ...listRows(list),
      ...listCache.rows,
      ...throughputRows(throughput),
    ];
    return {
      bundles,
      cold,
      warm: warm.summary,
      list,
      listCache: listCache.result,
      throughput,
      rows,
    };
  } finally {
    floor.destroy();
  }
}

let exitCode = 0;
try {
  const results = await main();
  const dbPid = (await db)?.pid;
  await cleanup();
  // Signal 0 only asks whether the process is still there.
  const javaLeft =
    dbPid !== undefined &&
    (() => {
      try {
        return process.kill(dbPid, 0);
      } catch {
        return false;
      }
    })();
  const wallSeconds = (performance.now() - benchStarted) / 1000;
  console.log(formatTable(results.rows));
  console.log(withoutPluginsNote(results.bundles));
  const missed = results.rows.filter((row) => row.met === false).length;
  const targeted = results.rows.filter((row) => row.met !== undefined).length;
  console.log(
    `\n${targeted - missed}/${targeted} targets met; bench wall time ${wallSeconds.toFixed(1)} s; ` +
      `DynamoDB Local ${javaLeft ? "STILL RUNNING" : "stopped"}.`,
  );
  const header = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: availableParallelism(),
    wallSeconds,
    limits: LIMITS,
  };
  await writeFile(
    `${benchDir}/results.json`,
    `${JSON.stringify({ ...header, ...results }, null, 2)}\n`,
  );
  console.log("results written to bench/results.json");
  if (javaLeft) exitCode = 1;
} catch (error) {
  if (!interrupted) console.error(error); // after a signal, the failure is only the section cut short
  exitCode = 1;
} finally {
  await cleanup();
}
// Imported handler bundles keep keep-alive sockets open; the bench is done with them.
process.exit(exitCode);
