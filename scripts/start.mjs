// `npm start`: DynamoDB Local with data on disk, the tables if missing, and serverless-offline
// behind the local front, serving the bundles anew after each rebuild. Ctrl-C stops all of it.
import { createRequire } from "node:module";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { referencePage } from "./docs.mjs";
import { runWithFlags, stopIfFails } from "./lib/cli.mjs";
import * as checks from "./lib/setup-checks.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);

const USAGE = `Usage: npm start

Serves the API at http://localhost:$PORT/api/post (3000 by default) as API Gateway would, on
DynamoDB Local with its data in $DYNAMODB_DATA_DIR (.dynamodb/), rebuilding and serving again on
every edit to handlers/ or lib/. Every setting is read from the environment and checked first
(docs/configuration.md); docs/running-locally.md says what differs from AWS.

Options:
  -h, --help   this text

Ctrl-C stops everything it started. Exit codes: 1 a setup problem (one line says what to do);
2 a bad option or setting.`;

/** Every setting, checked by the code serverless.yml runs; then the machine, before anything starts. */
async function checkSetup(/** @type {NodeJS.ProcessEnv} */ env, /** @type {string} */ dbPath) {
  // Named through a variable: type-checking every config module it reaches is not this file's job.
  const settingsModule = "../config/settings.cjs";
  const settings = require(settingsModule);
  stopIfFails(settings.checkSettings);
  checks.requireInstalledPackages(root);
  /** @type {{ issuerUrl: string, audience: string[], writeScope?: string, reads: boolean, userPool: boolean } | undefined} */
  const auth = require("../config/auth.cjs").readAuth();
  // The pool exists only in a deployed stack: locally its issuer would be a reference to nothing.
  if (auth?.userPool) {
    throw new checks.SetupError(
      "AUTH_USER_POOL=true creates a Cognito user pool when a stage is deployed; npm start has " +
        "none. To try the authorizer locally, use AUTH_ISSUER_URL=https://issuer.example " +
        "AUTH_AUDIENCE=blog AUTH_WRITE_SCOPE=blog/write npm start and a token minted for them " +
        "(docs/security.md).",
    );
  }
  checks.requireJava();
  // Read as the check above read them: blank is unset.
  const port = settings.readPort("PORT", env) ?? 3000;
  const lambdaPort = settings.readPort("LAMBDA_PORT", env) ?? port + 2;
  const dynamoPort = settings.readPort("DYNAMODB_PORT", env) ?? 8000;
  await checks.requireFreePort(port, "the API", "PORT");
  await checks.requireFreePort(lambdaPort, "serverless-offline's Lambda port", "LAMBDA_PORT");
  await checks.requireFreePort(dynamoPort, "DynamoDB Local", "DYNAMODB_PORT");
  checks.requireUsableDataDir(dbPath, checks.dynamoDbLocalBuild(root));
  return { auth, port, lambdaPort, dynamoPort };
}

/** What a developer needs once the API answers: the routes, a curl to try, how to stop. */
function banner(
  /** @type {Awaited<ReturnType<typeof checkSetup>>} */ { auth, port },
  /** @type {{ endpoint: string, pid: number }} */ db,
  /** @type {string} */ dataDir,
  /** @type {string | undefined} */ webhookUrl,
) {
  const base = `http://localhost:${port}`;
  const authLine = auth
    ? `Auth:     ${auth.reads ? "every route needs" : "POST, PUT and DELETE need"} Authorization: Bearer <JWT> ` +
      `with iss ${auth.issuerUrl}, aud ${auth.audience.join(" or ")}` +
      `${auth.writeScope ? `, scope ${auth.writeScope} for writes` : ""} (signature not checked locally)\n`
    : "";
  // Only said, not built: the page takes a build of its own, and most starts do not need it.
  const reference = existsSync(referencePage)
    ? `${pathToFileURL(referencePage).href} (npm run docs rebuilds it)`
    : `npm run docs writes it to ${relative(root, referencePage)}`;
  return `
Blog post API: ${base}/api/post  (DynamoDB Local ${db.endpoint}, pid ${db.pid}, data in ${dataDir}/)
  GET    /api/post            list every post
  POST   /api/post            create a post
  GET    /api/post/{post_pk}  read one post
  PUT    /api/post/{post_pk}  change some fields
  DELETE /api/post/{post_pk}  delete a post
Try:      curl -s -X POST ${base}/api/post -H 'content-type: application/json' -d '{"title":"Hello","content":"First post"}'
          or npm run seed for four sample posts
Contract: openapi.yaml; its reference page: ${reference}
${authLine}Unlike AWS: no throttle or WAF limit, the list buffered, no signature check; see docs/running-locally.md#unlike-aws
Edits to handlers/ or lib/ are rebuilt and served without a restart; Ctrl-C stops the API and DynamoDB Local.
Events:   ${webhookUrl ? `every change of a post, signed, to ${webhookUrl} (docs/events.md)` : "none sent (set WEBHOOK_URL and WEBHOOK_SECRET)"}
`;
}

async function main(env = process.env) {
  const dataDir = env.DYNAMODB_DATA_DIR ?? ".dynamodb";
  const dbPath = resolve(root, dataDir);
  const posts = env.POSTS_TABLE ?? "blog-post-api-local-posts";
  const timeZone = env.TIME_ZONE ?? "UTC";
  /** @type {(() => Promise<unknown>)[]} What to stop, last started first, once. */
  const started = [];
  let exiting = false;
  const stopAll = async () => {
    exiting = true;
    for (const task of started.splice(0).reverse()) await task().catch(() => undefined);
  };
  const exit = (/** @type {number | null} */ code) => {
    if (!exiting) void stopAll().then(() => process.exit(code ?? 1));
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => exit(0));
  try {
    const setup = await checkSetup(env, dbPath);
    const { watch } = await import("./build.mjs");
    const { startLocalApi } = await import("./lib/offline.mjs");
    const { startLocalFront } = await import("./lib/local-front.mjs");
    /** @type {Awaited<ReturnType<typeof startLocalApi>> | undefined} */
    let api;
    let restarting = Promise.resolve();
    // One change rebuilds every bundle: serve them anew once, after the last, so warm instances load them.
    const serveAnew = setTimeout(() => {
      restarting = restarting.then(async () => {
        if (exiting || !api) return;
        try {
          await api.restart();
          console.log(
            `\nRebuilt: serving the new bundles at http://localhost:${setup.port}/api/post\n`,
          );
        } catch (error) {
          // One that exited also ends npm start, through onExit; one stopped by Ctrl-C is no news.
          if (!exiting) console.error(`npm start: the rebuilt bundles are not served: ${error}`);
        }
      });
    }, 300);
    started.push(await watch({ onBuilt: () => void serveAnew.refresh() }));
    mkdirSync(dbPath, { recursive: true });
    api = await startLocalApi({
      posts,
      keys: env.IDEMPOTENCY_TABLE ?? "blog-post-api-local-idempotency-keys",
      dbPath,
      dynamoPort: setup.dynamoPort,
      lambdaPort: setup.lambdaPort,
      reserved: [setup.port],
      timeZone,
      onExit: exit,
    });
    started.push(api.stop);
    // PORT is the front's; serverless-offline listens behind it on a port picked once Java was up.
    started.push((await startLocalFront({ target: api.baseUrl, port: setup.port })).stop);
    writeFileSync(`${dbPath}/${checks.DATA_VERSION_FILE}`, `${checks.dynamoDbLocalBuild(root)}\n`);
    const webhookUrl = env.WEBHOOK_URL || undefined;
    if (webhookUrl) {
      // The events show the posts' timestamps in the API's zone, as on AWS.
      process.env.TZ = timeZone;
      const { startLocalEvents } = await import("./lib/local-events.mjs");
      // WEBHOOK_SECRET: space-separated, the newest first (docs/events.md).
      const secrets = (env.WEBHOOK_SECRET ?? "").split(" ").filter(Boolean);
      const events = await startLocalEvents({
        endpoint: api.db.endpoint,
        tableName: posts,
        positionFile: `${dbPath}/events-position.json`,
        deadLetterFile: `${dbPath}/events-dead-letters.jsonl`,
        subscriber: { url: webhookUrl, secrets },
      });
      started.push(events.stop);
    }
    console.log(banner(setup, api.db, dataDir, webhookUrl));
  } catch (error) {
    await stopAll();
    throw error;
  }
  return 0;
}

await runWithFlags({ name: "npm start", usage: USAGE, run: () => main() });
