// `npm run bench`: builds the production bundles, starts its own in-memory DynamoDB Local and
// measures each handler beside a floor: bundle size, cold start, warm overhead, listing 10,000
// posts, create throughput. Prints a table of ratios and writes bench/results.json. Every loop is
// bounded by a count and a time budget; DynamoDB Local is stopped however the run ends.
import { rm, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import * as esbuild from "esbuild";
import { startDynamoDbLocal } from "../scripts/dynamodb-local.mjs";
import { buildBundles, bundleRows, removePartialInstalls, withoutPluginsNote } from "./bundles.mjs";
import { measureColdStart, coldStartRows } from "./cold-start.mjs";
import { LIMITS, benchDir, benchStarted, importDirect, log, staging } from "./context.mjs";
import { listRows, measureList } from "./list.mjs";
import { prepareTables } from "./tables.mjs";
import { measureThroughput, throughputRows } from "./throughput.mjs";
import { formatTable, runningChildren } from "./util.mjs";
import { measureWarm, warmRows } from "./warm.mjs";

/** @typedef {Awaited<ReturnType<typeof startDynamoDbLocal>>} DynamoDbLocal */

// Lambda runs Node 22+; the SDK's notice about Node 20 is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

/** @type {Promise<DynamoDbLocal> | undefined} */
let dbStarting;
/** @type {Promise<void> | undefined} */
let cleaning;

const killChildren = () => {
  for (const child of runningChildren) child.kill("SIGKILL");
};

/** Ends child processes and DynamoDB Local, removes the staging folder; safe to call twice. */
function cleanup() {
  cleaning ??= (async () => {
    killChildren();
    // A start under way is waited for, so its Java process is stopped too.
    const db = await dbStarting?.catch(() => undefined);
    await db?.stop();
    // esbuild's service would otherwise go on writing into the folder being removed.
    await esbuild.stop();
    await rm(staging, { recursive: true, force: true });
    await removePartialInstalls();
    // Children spawned while this was waiting: a section still running does not know yet.
    killChildren();
  })();
  return cleaning;
}

/** Starts DynamoDB Local, unless cleanup has begun (it would then never be stopped). */
function startDb() {
  if (cleaning) throw new Error("not starting DynamoDB Local: the bench is stopping");
  dbStarting = startDynamoDbLocal();
  return dbStarting;
}

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
  const { endpoint } = await startDb();
  const direct = await importDirect(endpoint);
  try {
    await prepareTables(endpoint, direct);
    log("cold start");
    const cold = await measureColdStart(endpoint);
    log("warm overhead");
    const warm = await measureWarm(endpoint);
    log(`listing ${LIMITS.listPosts} posts`);
    const list = await measureList(endpoint);
    log("create throughput");
    const createHandler = /** @type {import("./context.mjs").Handler} */ (
      warm.handlers["create-post"]
    );
    const throughput = await measureThroughput(endpoint, direct, createHandler);
    const rows = [
      ...bundleRows(bundles),
      ...coldStartRows(cold),
      ...warmRows(warm.summary),
      ...listRows(list),
      ...throughputRows(throughput),
    ];
    return { bundles, cold, warm: warm.summary, list, throughput, rows };
  } finally {
    direct.destroy();
  }
}

/** Whether a process is still there. */
function alive(/** @type {number | undefined} */ pid) {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: it is gone.
    return false;
  }
}

let exitCode = 0;
try {
  const results = await main();
  const dbPid = (await dbStarting)?.pid;
  await cleanup();
  const javaLeft = alive(dbPid);
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
  // After a signal, the failure is only the section that was cut short.
  if (!interrupted) console.error(error);
  exitCode = 1;
} finally {
  await cleanup();
}
// Imported handler bundles keep keep-alive sockets open; the bench is done with them.
process.exit(exitCode);
