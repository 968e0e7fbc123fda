// `npm start`: DynamoDB Local with data on disk, the tables if missing, and serverless-offline
// serving the bundles, restarted whenever a rebuild changes them. Ctrl-C stops everything it started.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { referencePage } from "./docs.mjs";
import { StopError, runWithFlags } from "./lib/cli.mjs";
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

/** What `npm start` reads from the environment (checked already), with its defaults. */
function readSettings(env = process.env) {
  const port = Number(env.PORT ?? 3000);
  const dataDirSetting = env.DYNAMODB_DATA_DIR ?? ".dynamodb";
  return {
    port,
    lambdaPort: Number(env.LAMBDA_PORT ?? port + 2),
    dynamoPort: Number(env.DYNAMODB_PORT ?? 8000),
    posts: env.POSTS_TABLE ?? "blog-post-api-local-posts",
    keys: env.IDEMPOTENCY_TABLE ?? "blog-post-api-local-idempotency-keys",
    timeZone: env.TIME_ZONE ?? "UTC",
    // Every change of a post, signed, to this URL (docs/events.md); secrets space-separated.
    webhookUrl: env.WEBHOOK_URL || undefined,
    webhookSecrets: (env.WEBHOOK_SECRET ?? "").split(" ").filter(Boolean),
    dataDirSetting,
    dbPath: resolve(root, dataDirSetting),
  };
}
/** @typedef {ReturnType<typeof readSettings>} Settings */

/** Every setting, checked by the code serverless.yml runs; then the machine, before anything starts. */
async function checkSetup(/** @type {Settings} */ settings) {
  try {
    // Named through a variable: type-checking every config module it reaches is not this file's job.
    const settingsModule = "../config/settings.cjs";
    require(settingsModule).checkSettings();
  } catch (error) {
    throw new StopError(/** @type {Error} */ (error).message);
  }
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
  await checks.requireFreePort(settings.port, "the API", "PORT");
  await checks.requireFreePort(
    settings.lambdaPort,
    "serverless-offline's Lambda endpoint",
    "LAMBDA_PORT",
  );
  await checks.requireFreePort(settings.dynamoPort, "DynamoDB Local", "DYNAMODB_PORT");
  checks.requireUsableDataDir(settings.dbPath, checks.dynamoDbLocalBuild(root));
  return auth;
}

/** What a developer needs once the API answers: the routes, a curl to try, how to stop. */
function banner(
  /** @type {Settings} */ settings,
  /** @type {Awaited<ReturnType<typeof checkSetup>>} */ auth,
  /** @type {{ endpoint: string, pid: number }} */ db,
) {
  const base = `http://localhost:${settings.port}`;
  const authLine = auth
    ? `Auth:     ${auth.reads ? "every route needs" : "POST, PUT and DELETE need"} Authorization: Bearer <JWT> ` +
      `with iss ${auth.issuerUrl}, aud ${auth.audience.join(" or ")}` +
      `${auth.writeScope ? `, scope ${auth.writeScope} for writes` : ""} (signature not checked locally)\n`
    : "";
  // Only said, not built: the page takes a build of its own, and most starts do not need it.
  const reference = existsSync(referencePage)
    ? `${pathToFileURL(referencePage).href} (npm run docs rebuilds it)`
    : `npm run docs writes it to ${relative(root, referencePage)}`;
  const events = settings.webhookUrl
    ? `every change of a post, signed, to ${settings.webhookUrl} (docs/events.md)`
    : "none sent (set WEBHOOK_URL and WEBHOOK_SECRET)";
  return `
Blog post API: ${base}/api/post  (DynamoDB Local ${db.endpoint}, pid ${db.pid}, data in ${settings.dataDirSetting}/)
  GET    /api/post            list every post
  POST   /api/post            create a post
  GET    /api/post/{post_pk}  read one post
  PUT    /api/post/{post_pk}  change some fields
  DELETE /api/post/{post_pk}  delete a post
Try:      curl -s -X POST ${base}/api/post -H 'content-type: application/json' -d '{"title":"Hello","content":"First post"}'
Samples:  npm run seed
Contract: openapi.yaml (OpenAPI 3.1; npm run docs writes a page of it)
Reference: ${reference}
${authLine}Unlike AWS: no throttle or WAF limit, the list buffered, no signature check; see docs/running-locally.md#unlike-aws
Edits to handlers/ or lib/ are rebuilt and served without a restart.
Ctrl-C stops the API and DynamoDB Local.
Events:   ${events}
`;
}

async function main() {
  // Lambda runs Node 24; the SDK's notice about older Node is noise for local runs.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const settings = readSettings();
  /** @type {(() => Promise<unknown>)[]} What to stop, last started first, once. */
  const started = [];
  const stopAll = async () => {
    for (const task of started.splice(0).reverse()) await task().catch(() => undefined);
  };
  let exiting = false;
  const exit = (/** @type {number | null} */ code) => {
    if (exiting) return;
    exiting = true;
    void stopAll().then(() => process.exit(code ?? 1));
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => exit(0));
  try {
    const auth = await checkSetup(settings);
    const { handlerNames, watch } = await import("./build.mjs");
    const { startLocalApi } = await import("./lib/offline.mjs");
    const { startLocalFront } = await import("./lib/local-front.mjs");
    /** A digest of the built bundles, to tell a rebuild that changed them from one that did not. */
    const bundlesDigest = () => {
      const hash = createHash("sha256");
      for (const name of handlerNames) hash.update(readFileSync(`${root}dist/${name}/index.mjs`));
      return hash.digest("hex");
    };
    /** @type {Awaited<ReturnType<typeof startLocalApi>> | undefined} */
    let api;
    /** @type {Awaited<ReturnType<typeof startLocalFront>> | undefined} */
    let front;
    let served = "";
    let restarting = Promise.resolve();
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    // Serves the new bundles if they changed, so that warm instances load them.
    const reloadIfChanged = () => {
      restarting = restarting.then(async () => {
        if (exiting || !api || !front || bundlesDigest() === served) return;
        served = bundlesDigest();
        await api.restart().catch(() => undefined);
        console.log(`\nRebuilt: serving the new bundles at ${front.url}/api/post\n`);
      });
    };
    const onBuilt = () => {
      // One change rebuilds every bundle: react once, after the last.
      clearTimeout(timer);
      timer = setTimeout(reloadIfChanged, 300);
    };
    started.push(await watch({ onBuilt }));
    mkdirSync(settings.dbPath, { recursive: true });
    served = bundlesDigest();
    // serverless-offline listens on a port of its own, picked only once DynamoDB Local is up (a
    // port picked earlier may be taken meanwhile); PORT is the front's (scripts/lib/local-front.mjs).
    api = await startLocalApi({ ...settings, onExit: exit });
    started.push(api.stop);
    front = await startLocalFront({ target: api.baseUrl, port: settings.port });
    started.push(front.stop);
    const { db } = api;
    writeFileSync(
      `${settings.dbPath}/${checks.DATA_VERSION_FILE}`,
      `${checks.dynamoDbLocalBuild(root)}\n`,
    );
    if (settings.webhookUrl) {
      // The events show the posts' timestamps in the API's zone, as on AWS.
      process.env.TZ = settings.timeZone;
      const { startLocalEvents } = await import("./lib/local-events.mjs");
      const events = await startLocalEvents({
        endpoint: db.endpoint,
        tableName: settings.posts,
        positionFile: `${settings.dbPath}/events-position.json`,
        deadLetterFile: `${settings.dbPath}/events-dead-letters.jsonl`,
        subscriber: { url: settings.webhookUrl, secrets: settings.webhookSecrets },
      });
      started.push(events.stop);
    }
    console.log(banner(settings, auth, db));
  } catch (error) {
    exiting = true;
    await stopAll();
    throw error;
  }
  return 0;
}

await runWithFlags({ name: "npm start", usage: USAGE, run: main });
