// `npm start`: DynamoDB Local with data on disk, the table if missing, and serverless-offline
// serving the bundles (rebuilt on every change). Ctrl-C stops everything it started.
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { watch } from "./build.mjs";
import {
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  ensureIdempotencyTable,
  ensureTable,
  localClient,
  startDynamoDbLocal,
} from "./dynamodb-local.mjs";

// Lambda runs Node 22+; the SDK's notice about Node 20 is noise for local runs.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const root = fileURLToPath(new URL("..", import.meta.url));
const port = Number(process.env.PORT ?? 3000);
const dynamoPort = Number(process.env.DYNAMODB_PORT ?? 8000);
const tableName = process.env.POSTS_TABLE ?? "blog-post-api-local-posts";
const keysTableName = process.env.IDEMPOTENCY_TABLE ?? "blog-post-api-local-idempotency-keys";
const dataDir = `${root}.dynamodb`;

mkdirSync(dataDir, { recursive: true });
/** Starts DynamoDB Local on its data folder and creates the tables; stops it again on failure. */
async function startStorage() {
  const started = await startDynamoDbLocal({ port: dynamoPort, dbPath: dataDir });
  const client = localClient(started.endpoint);
  try {
    await ensureTable(client, tableName);
    await ensureIdempotencyTable(client, keysTableName);
    return started;
  } catch (error) {
    await started.stop();
    throw error;
  } finally {
    client.destroy();
  }
}

const stopWatching = await watch();
const db = await startStorage().catch(async (error) => {
  // Nothing this script started may outlive it, Java least of all.
  await stopWatching();
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
console.log(`DynamoDB Local (pid ${db.pid}) on ${db.endpoint}, data in .dynamodb/`);

const serverlessBin = createRequire(import.meta.url).resolve("serverless/bin/serverless.js");
const offline = spawn(
  process.execPath,
  [
    serverlessBin,
    "offline",
    "start",
    "--stage",
    "local",
    "--httpPort",
    String(port),
    "--lambdaPort",
    String(Number(process.env.LAMBDA_PORT ?? port + 2)),
    "--reloadHandler",
  ],
  {
    cwd: root,
    stdio: "inherit",
    env: {
      ...process.env,
      POSTS_TABLE: tableName,
      IDEMPOTENCY_TABLE: keysTableName,
      TZ: process.env.TIME_ZONE ?? "UTC",
      AWS_ENDPOINT_URL_DYNAMODB: db.endpoint,
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    },
  },
);

/** Waits for serverless-offline to answer, then says where everything is. */
async function announce() {
  const base = `http://localhost:${port}`;
  for (let tries = 0; tries < 300 && offline.exitCode === null; tries++) {
    try {
      await fetch(`${base}/api/post`);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  console.log(`
Blog post API: ${base}/api/post  (DynamoDB Local ${db.endpoint}, data in .dynamodb/)
  GET    /api/post            list every post
  POST   /api/post            create a post
  GET    /api/post/{post_pk}  read one post
  PUT    /api/post/{post_pk}  change some fields
  DELETE /api/post/{post_pk}  delete a post
Try:      curl -s -X POST ${base}/api/post -H 'content-type: application/json' -d '{"title":"Hello","content":"First post"}'
Samples:  npm run seed
Contract: openapi.yaml (OpenAPI 3.1; see the README to open it in a viewer)
Ctrl-C stops the API and DynamoDB Local.
`);
}

let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  if (offline.exitCode === null) offline.kill("SIGTERM");
  await db.stop();
  await stopWatching();
  process.exit(code);
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => void stop());
offline.on("exit", (code) => void stop(code ?? 0));
void announce();
