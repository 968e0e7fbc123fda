// `npm start`: DynamoDB Local with data on disk, the tables if missing, and serverless-offline
// serving the bundles, restarted whenever a rebuild changes them. Ctrl-C stops everything it started.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  DATA_VERSION_FILE,
  SetupError,
  dynamoDbLocalBuild,
  requireFreePort,
  requireInstalledPackages,
  requireJava,
  requireUsableDataDir,
} from "./setup-checks.mjs";

// Lambda runs Node 24; the SDK's notice about older Node is noise for local runs.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const root = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);
const port = Number(process.env.PORT ?? 3000);
const lambdaPort = Number(process.env.LAMBDA_PORT ?? port + 2);
const dynamoPort = Number(process.env.DYNAMODB_PORT ?? 8000);
const tableName = process.env.POSTS_TABLE ?? "blog-post-api-local-posts";
const keysTableName = process.env.IDEMPOTENCY_TABLE ?? "blog-post-api-local-idempotency-keys";
const dataDirSetting = process.env.DYNAMODB_DATA_DIR ?? ".dynamodb";
const dataDir = resolve(root, dataDirSetting);

/** @type {(() => Promise<unknown>)[]} */
const stopOnExit = [];
let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const stopOne of stopOnExit.reverse()) await stopOne().catch(() => undefined);
  process.exit(code);
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => void stop());

/** Prints what went wrong (a setup problem without a stack trace) and stops what was started. */
/** @typedef {{ issuerUrl: string, audience: string[], writeScope?: string, reads: boolean }} Auth */
/** @type {Auth | undefined} */
let auth;
/** The JWT settings as serverless.yml reads them; a bad AUTH_* setting stops here in one line. */
function readAuthSettings() {
  try {
    return /** @type {Auth | undefined} */ (require("../config/auth.cjs").readAuth());
  } catch (error) {
    throw new SetupError(error instanceof Error ? error.message : String(error));
  }
}

async function fail(/** @type {unknown} */ error) {
  console.error(error instanceof SetupError ? error.message : error);
  await stop(1);
}

try {
  // Before anything is imported from node_modules or started.
  requireInstalledPackages(root);
  auth = readAuthSettings();
  requireJava();
  await requireFreePort(port, "the API", "PORT");
  await requireFreePort(lambdaPort, "serverless-offline's Lambda endpoint", "LAMBDA_PORT");
  await requireFreePort(dynamoPort, "DynamoDB Local", "DYNAMODB_PORT");
  requireUsableDataDir(dataDir, dynamoDbLocalBuild(root));
} catch (error) {
  await fail(error);
}

const { handlerNames, watch } = await import("./build.mjs");
const { ensureIdempotencyTable, ensureTable, localClient, startDynamoDbLocal } =
  await import("./dynamodb-local.mjs");
const { spawnOffline } = await import("./offline.mjs");

/** Starts DynamoDB Local on its data folder and creates the tables; stops it again on failure. */
async function startStorage() {
  mkdirSync(dataDir, { recursive: true });
  const started = await startDynamoDbLocal({ port: dynamoPort, dbPath: dataDir });
  stopOnExit.push(started.stop);
  const client = localClient(started.endpoint);
  try {
    await ensureTable(client, tableName);
    await ensureIdempotencyTable(client, keysTableName);
  } finally {
    client.destroy();
  }
  writeFileSync(`${dataDir}/${DATA_VERSION_FILE}`, `${dynamoDbLocalBuild(root)}\n`);
  return started;
}

/** A digest of the built bundles, to tell a rebuild that changed them from one that did not. */
function bundlesDigest() {
  const hash = createHash("sha256");
  for (const name of handlerNames) hash.update(readFileSync(`${root}dist/${name}/index.mjs`));
  return hash.digest("hex");
}

/** @type {ReturnType<typeof spawnOffline> | undefined} */
let offline;
let servedDigest = "";
/** @type {NodeJS.Timeout | undefined} */
let rebuildTimer;
let restarting = Promise.resolve();

/** Starts serverless-offline over the current bundles; stops everything if it ends on its own. */
function serve(/** @type {string} */ dynamoEndpoint) {
  servedDigest = bundlesDigest();
  const started = spawnOffline({
    httpPort: port,
    lambdaPort,
    dynamoEndpoint,
    postsTable: tableName,
    idempotencyTable: keysTableName,
    timeZone: process.env.TIME_ZONE ?? "UTC",
  });
  void started.exited.then((code) => {
    if (offline === started && !stopping) void stop(code ?? 1);
  });
  offline = started;
  return started;
}

/** Restarts serverless-offline if the bundles changed, so warm instances load the new code. */
function reloadIfChanged(/** @type {string} */ dynamoEndpoint) {
  restarting = restarting.then(async () => {
    if (stopping || !offline || bundlesDigest() === servedDigest) return;
    const old = offline;
    offline = undefined;
    await old.stop();
    const next = serve(dynamoEndpoint);
    await next.ready().catch(() => undefined);
    console.log(`\nRebuilt: serving the new bundles at ${next.baseUrl}/api/post\n`);
  });
}

let dynamoEndpoint = "";
try {
  const stopWatching = await watch({
    onBuilt: () => {
      // One change rebuilds five bundles: restart once, after the last.
      clearTimeout(rebuildTimer);
      rebuildTimer = setTimeout(() => dynamoEndpoint && reloadIfChanged(dynamoEndpoint), 300);
    },
  });
  stopOnExit.push(stopWatching);
  const db = await startStorage();
  dynamoEndpoint = db.endpoint;
  console.log(`DynamoDB Local (pid ${db.pid}) on ${db.endpoint}, data in ${dataDirSetting}/`);
  stopOnExit.push(() => offline?.stop() ?? Promise.resolve());
  await serve(db.endpoint).ready(120_000);
} catch (error) {
  await fail(error);
}

const base = `http://localhost:${port}`;
const authLine = auth
  ? `Auth:     ${auth.reads ? "every route needs" : "POST, PUT and DELETE need"} Authorization: Bearer <JWT> ` +
    `with iss ${auth.issuerUrl}, aud ${auth.audience.join(" or ")}` +
    `${auth.writeScope ? `, scope ${auth.writeScope} for writes` : ""} (signature not checked locally)\n`
  : "";
console.log(`
Blog post API: ${base}/api/post  (DynamoDB Local ${dynamoEndpoint}, data in ${dataDirSetting}/)
  GET    /api/post            list every post
  POST   /api/post            create a post
  GET    /api/post/{post_pk}  read one post
  PUT    /api/post/{post_pk}  change some fields
  DELETE /api/post/{post_pk}  delete a post
Try:      curl -s -X POST ${base}/api/post -H 'content-type: application/json' -d '{"title":"Hello","content":"First post"}'
Samples:  npm run seed
Contract: openapi.yaml (OpenAPI 3.1; see the README to open it in a viewer)
${authLine}Edits to handlers/ or lib/ are rebuilt and served without a restart.
Ctrl-C stops the API and DynamoDB Local.
`);
