// `node bench/list-cache-alone.mjs`: the list-cache section (bench/list-cache.mjs) and create
// throughput on their own, with the bundles, DynamoDB Local and seeded tables `npm run bench` uses.
import { rm } from "node:fs/promises";
import * as esbuild from "esbuild";
import { startDynamoDbLocal } from "../scripts/dynamodb-local.mjs";
import { buildBundles, removePartialInstalls } from "./bundles.mjs";
import { importDirect, importHandler, lambdaEnv, log, staging } from "./context.mjs";
import { measureListCache } from "./list-cache.mjs";
import { TABLES, prepareTables } from "./tables.mjs";
import { measureThroughput, throughputRows } from "./throughput.mjs";
import { formatTable, runningChildren } from "./util.mjs";

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
// An error thrown outside the awaited chain must still reach the cleanup below.
process.on("uncaughtException", (error) => {
  console.error(error);
  void stop().finally(() => process.exit(1));
});
const started = performance.now();
/** @type {Awaited<ReturnType<typeof startDynamoDbLocal>> | undefined} */
let db;
let exitCode = 0;
/** @type {Promise<void> | undefined} */
let stopping;
/** Ends children and DynamoDB Local, removes the staging folder; safe to call twice. */
function stop() {
  stopping ??= (async () => {
    for (const child of runningChildren) child.kill("SIGKILL");
    await db?.stop();
    await esbuild.stop();
    await rm(staging, { recursive: true, force: true });
    await removePartialInstalls();
  })();
  return stopping;
}
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => void stop().finally(() => process.exit(130)));
}
try {
  log("building bundles");
  await buildBundles();
  log("starting DynamoDB Local");
  db = await startDynamoDbLocal();
  const direct = await importDirect(db.endpoint);
  await prepareTables(db.endpoint, direct);
  const { result, rows } = await measureListCache(db.endpoint, direct);
  log("create throughput");
  const create = await importHandler("create-post", lambdaEnv(db.endpoint, TABLES.small));
  const throughput = await measureThroughput(db.endpoint, direct, create);
  direct.destroy();
  console.log(formatTable([...rows, ...throughputRows(throughput)]));
  console.log(JSON.stringify(result));
  console.log(`wall time ${((performance.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  await stop();
}
process.exit(exitCode);
