// `npm start`: DynamoDB Local with data on disk, the tables if missing, and serverless-offline
// serving the bundles, restarted whenever a rebuild changes them. Ctrl-C stops everything it started.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { referencePage } from "./docs.mjs";
import { StopError, runWithFlags } from "./lib/cli.mjs";
import {
  DATA_VERSION_FILE,
  SetupError,
  dynamoDbLocalBuild,
  requireFreePort,
  requireInstalledPackages,
  requireJava,
  requireUsableDataDir,
} from "./lib/setup-checks.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);

/** @typedef {ReturnType<typeof readSettings>} Settings */
/** @typedef {{ issuerUrl: string, audience: string[], writeScope?: string, reads: boolean }} Auth */
/** @typedef {ReturnType<typeof createShutdown>} Shutdown */

/** What `npm start` reads from the environment, with its defaults. */
function readSettings(env = process.env) {
  const port = Number(env.PORT ?? 3000);
  const dataDirSetting = env.DYNAMODB_DATA_DIR ?? ".dynamodb";
  return {
    port,
    lambdaPort: Number(env.LAMBDA_PORT ?? port + 2),
    dynamoPort: Number(env.DYNAMODB_PORT ?? 8000),
    tableName: env.POSTS_TABLE ?? "blog-post-api-local-posts",
    keysTableName: env.IDEMPOTENCY_TABLE ?? "blog-post-api-local-idempotency-keys",
    timeZone: env.TIME_ZONE ?? "UTC",
    // Every change of a post, signed, to this URL (docs/events.md); secrets space-separated.
    webhookUrl: env.WEBHOOK_URL || undefined,
    webhookSecrets: (env.WEBHOOK_SECRET ?? "").split(" ").filter(Boolean),
    dataDirSetting,
    dataDir: resolve(root, dataDirSetting),
  };
}

/** What to stop on exit, stopped once, last started first, on Ctrl-C or a failure. */
function createShutdown() {
  /** @type {(() => Promise<unknown>)[]} */
  const tasks = [];
  let stopping = false;
  const stop = async (code = 0) => {
    if (stopping) return;
    stopping = true;
    for (const task of tasks.reverse()) await task().catch(() => undefined);
    process.exit(code);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => void stop());
  return {
    stop,
    isStopping: () => stopping,
    /** @param {() => Promise<unknown>} task */
    onExit: (task) => void tasks.push(task),
    /** Prints what went wrong in one line (its stack only with DEBUG set) and stops. */
    fail: async (/** @type {unknown} */ error) => {
      console.error(error instanceof Error ? error.message : String(error));
      if (process.env.DEBUG && !(error instanceof SetupError)) console.error(error);
      await stop(1);
    },
  };
}

/** The JWT settings as serverless.yml reads them (checked already, with every other setting). */
function readAuthSettings() {
  const auth = /** @type {(Auth & { userPool: boolean }) | undefined} */ (
    require("../config/auth.cjs").readAuth()
  );
  // The pool exists only in a deployed stack: locally its issuer would be a reference to nothing.
  if (auth?.userPool) {
    throw new SetupError(
      "AUTH_USER_POOL=true creates a Cognito user pool when a stage is deployed; npm start has " +
        "none. To try the authorizer locally, use AUTH_ISSUER_URL=https://issuer.example " +
        "AUTH_AUDIENCE=blog AUTH_WRITE_SCOPE=blog/write npm start and a token minted for them " +
        "(docs/security.md).",
    );
  }
  return auth;
}

/** Everything `npm start` needs, checked before anything is imported from node_modules or started. */
async function checkSetup(/** @type {Settings} */ settings) {
  requireInstalledPackages(root);
  const auth = readAuthSettings();
  requireJava();
  await requireFreePort(settings.port, "the API", "PORT");
  await requireFreePort(settings.lambdaPort, "serverless-offline's Lambda endpoint", "LAMBDA_PORT");
  await requireFreePort(settings.dynamoPort, "DynamoDB Local", "DYNAMODB_PORT");
  requireUsableDataDir(settings.dataDir, dynamoDbLocalBuild(root));
  return auth;
}

/** Starts DynamoDB Local on its data folder and creates the tables if they are missing. */
async function startStorage(/** @type {Settings} */ settings, /** @type {Shutdown} */ shutdown) {
  const { ensureIdempotencyTable, ensureTable, localClient, startDynamoDbLocal } =
    await import("./lib/dynamodb-local.mjs");
  mkdirSync(settings.dataDir, { recursive: true });
  const started = await startDynamoDbLocal({ port: settings.dynamoPort, dbPath: settings.dataDir });
  shutdown.onExit(started.stop);
  const client = localClient(started.endpoint);
  try {
    await ensureTable(client, settings.tableName);
    await ensureIdempotencyTable(client, settings.keysTableName);
  } finally {
    client.destroy();
  }
  writeFileSync(`${settings.dataDir}/${DATA_VERSION_FILE}`, `${dynamoDbLocalBuild(root)}\n`);
  return started;
}

/**
 * serverless-offline over the built bundles, restarted when a rebuild changes them so that warm
 * instances load the new code; everything stops if it ends on its own.
 */
async function createServer(
  /** @type {Settings} */ settings,
  /** @type {Shutdown} */ shutdown,
  /** @type {string} */ dynamoEndpoint,
) {
  const { handlerNames } = await import("./build.mjs");
  const { spawnOffline } = await import("./lib/offline.mjs");
  const { freePort } = await import("./lib/ports.mjs");
  const { startLocalFront } = await import("./lib/local-front.mjs");
  // serverless-offline listens on a port of its own; PORT is the front's (scripts/lib/local-front.mjs).
  const offlinePort = await freePort();
  const front = await startLocalFront({
    target: `http://127.0.0.1:${offlinePort}`,
    port: settings.port,
  });
  shutdown.onExit(front.stop);
  /** A digest of the built bundles, to tell a rebuild that changed them from one that did not. */
  const bundlesDigest = () => {
    const hash = createHash("sha256");
    for (const name of handlerNames) hash.update(readFileSync(`${root}dist/${name}/index.mjs`));
    return hash.digest("hex");
  };
  /** @type {ReturnType<typeof spawnOffline> | undefined} */
  let offline;
  let servedDigest = "";
  let restarting = Promise.resolve();
  const serve = () => {
    servedDigest = bundlesDigest();
    const started = spawnOffline({
      host: "127.0.0.1",
      httpPort: offlinePort,
      lambdaPort: settings.lambdaPort,
      dynamoEndpoint,
      postsTable: settings.tableName,
      idempotencyTable: settings.keysTableName,
      timeZone: settings.timeZone,
    });
    void started.exited.then((code) => {
      if (offline === started && !shutdown.isStopping()) void shutdown.stop(code ?? 1);
    });
    offline = started;
    return started;
  };
  shutdown.onExit(() => offline?.stop() ?? Promise.resolve());
  return {
    /** Serves the current bundles and waits until the API answers. */
    start: () => serve().ready(120_000),
    /** Restarts on the new bundles if they changed. */
    reloadIfChanged: () => {
      restarting = restarting.then(async () => {
        if (shutdown.isStopping() || !offline || bundlesDigest() === servedDigest) return;
        const old = offline;
        offline = undefined;
        await old.stop();
        const next = serve();
        await next.ready().catch(() => undefined);
        console.log(`\nRebuilt: serving the new bundles at ${front.url}/api/post\n`);
      });
    },
  };
}

/** Builds the bundles now and on every change; `onChange` runs once after a burst of rebuilds. */
async function watchBundles(/** @type {() => void} */ onChange) {
  const { watch } = await import("./build.mjs");
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  return watch({
    onBuilt: () => {
      // One change rebuilds five bundles: react once, after the last.
      clearTimeout(timer);
      timer = setTimeout(onChange, 300);
    },
  });
}

/** What a developer needs once the API answers: the routes, a curl to try, how to stop. */
function banner(
  /** @type {Settings} */ settings,
  /** @type {Auth | undefined} */ auth,
  /** @type {string} */ dynamoEndpoint,
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
  return `
Blog post API: ${base}/api/post  (DynamoDB Local ${dynamoEndpoint}, data in ${settings.dataDirSetting}/)
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
`;
}

const USAGE = `Usage: npm start

Serves the API at http://localhost:$PORT/api/post (3000 by default) as API Gateway would, on
DynamoDB Local with its data in $DYNAMODB_DATA_DIR (.dynamodb/), rebuilding and serving again on
every edit to handlers/ or lib/. Every setting is read from the environment and checked first
(docs/configuration.md); docs/running-locally.md says what differs from AWS.

Options:
  -h, --help   this text

Ctrl-C stops everything it started. Exit codes: 1 a setup problem (one line says what to do);
2 a bad option or setting.`;

/** Every setting, checked by the same code serverless.yml runs (config/settings.cjs). */
function checkEverySetting() {
  try {
    // Named through a variable: type-checking every config module it reaches is not this file's job.
    const settingsModule = "../config/settings.cjs";
    require(settingsModule).checkSettings();
  } catch (error) {
    throw new StopError(/** @type {Error} */ (error).message);
  }
}

/** With WEBHOOK_URL, reads the table's stream and delivers every change there; says so in a line. */
async function startEvents(
  /** @type {Settings} */ settings,
  /** @type {Shutdown} */ shutdown,
  /** @type {string} */ endpoint,
) {
  if (!settings.webhookUrl) return "Events:   none sent (set WEBHOOK_URL and WEBHOOK_SECRET)\n";
  if (settings.webhookSecrets.length === 0) {
    throw new SetupError(
      "WEBHOOK_URL needs WEBHOOK_SECRET=whsec_<base64> (npm run listen -- --new-secret)",
    );
  }
  // The events show the posts' timestamps in the API's zone, as on AWS.
  process.env.TZ = settings.timeZone;
  const { startLocalEvents } = await import("./lib/local-events.mjs");
  const events = await startLocalEvents({
    endpoint,
    tableName: settings.tableName,
    positionFile: `${settings.dataDir}/events-position.json`,
    deadLetterFile: `${settings.dataDir}/events-dead-letters.jsonl`,
    subscriber: { url: settings.webhookUrl, secrets: settings.webhookSecrets },
  }).catch((/** @type {Error} */ error) => {
    throw new SetupError(error.message);
  });
  shutdown.onExit(events.stop);
  return `Events:   every change of a post, signed, to ${settings.webhookUrl} (docs/events.md)\n`;
}

async function main() {
  // Lambda runs Node 24; the SDK's notice about older Node is noise for local runs.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  checkEverySetting();
  const settings = readSettings();
  const shutdown = createShutdown();
  try {
    const auth = await checkSetup(settings);
    /** @type {Awaited<ReturnType<typeof createServer>> | undefined} */
    let server;
    shutdown.onExit(await watchBundles(() => server?.reloadIfChanged()));
    const db = await startStorage(settings, shutdown);
    console.log(
      `DynamoDB Local (pid ${db.pid}) on ${db.endpoint}, data in ${settings.dataDirSetting}/`,
    );
    const created = await createServer(settings, shutdown, db.endpoint);
    await created.start();
    server = created;
    const events = await startEvents(settings, shutdown, db.endpoint);
    console.log(banner(settings, auth, db.endpoint) + events);
  } catch (error) {
    await shutdown.fail(error);
  }
  return 0;
}

await runWithFlags({ name: "npm start", usage: USAGE, run: main });
