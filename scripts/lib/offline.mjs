// serverless-offline as `npm start` runs it, shared with `npm run load` and the test that loads it,
// so what is measured is what a developer runs.
import { execFile, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  ensureIdempotencyTable,
  ensureTable,
  localClient,
  startDynamoDbLocal,
} from "./dynamodb-local.mjs";
import { freePort } from "./ports.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const serverlessBin = createRequire(import.meta.url).resolve("serverless/bin/serverless.js");
const STOP_GRACE_MS = 5_000;

/**
 * The options that shape how functions run. No `--reloadHandler`: with it every request starts a
 * new worker (bundle and SDK loaded afresh) that lives on for `terminateIdleLambdaTime`, so memory
 * grows with the request rate and every request is a cold start. `--useInProcess` loads each
 * function's bundle once into this process and reuses it, as a warm Lambda instance is reused;
 * the default (a worker thread per request in flight, about 25 MB each) kept growing past 1 GB
 * under sustained creates. New code reaches them by restarting the process (see `npm start`).
 */
export const OFFLINE_FUNCTION_OPTIONS = ["--terminateIdleLambdaTime", "60", "--useInProcess"];

/**
 * @typedef {object} OfflineSettings
 * @property {number} httpPort
 * @property {number} lambdaPort
 * @property {string} dynamoEndpoint
 * @property {string} postsTable
 * @property {string} idempotencyTable
 * @property {string} [host] defaults to serverless-offline's own (localhost)
 * @property {string} [stage]
 * @property {string} [timeZone]
 * @property {Record<string, string | undefined>} [env] more settings, such as LOG_LEVEL
 * @property {"inherit" | "pipe" | "ignore"} [stdio]
 */

/**
 * Starts serverless-offline over the bundles in dist/, in its own process group so that `stop()`
 * reaches everything it started. Resolves once it is spawned; `ready()` waits for HTTP.
 * @param {OfflineSettings} settings
 */
export function spawnOffline(settings) {
  const { httpPort, lambdaPort, stage = "local", timeZone = "UTC", stdio = "inherit" } = settings;
  const child = spawn(
    process.execPath,
    [
      serverlessBin,
      ...["offline", "start", "--stage", stage],
      ...(settings.host ? ["--host", settings.host] : []),
      ...["--httpPort", String(httpPort), "--lambdaPort", String(lambdaPort)],
      ...OFFLINE_FUNCTION_OPTIONS,
    ],
    {
      cwd: root,
      detached: true,
      stdio: ["ignore", stdio, stdio],
      env: {
        ...process.env,
        ...settings.env,
        POSTS_TABLE: settings.postsTable,
        IDEMPOTENCY_TABLE: settings.idempotencyTable,
        TIME_ZONE: timeZone,
        // Functions run in worker threads, which share the process's zone.
        TZ: timeZone,
        AWS_ENDPOINT_URL_DYNAMODB: settings.dynamoEndpoint,
        AWS_REGION: LOCAL_REGION,
        AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      },
    },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error("serverless-offline could not be spawned");
  /** @type {Promise<number | null>} */
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));

  const signalGroup = (/** @type {NodeJS.Signals} */ signal) => {
    try {
      process.kill(-pid, signal);
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== "ESRCH") throw error;
    }
  };
  // Last resort if this process ends without calling stop().
  const killOnExit = () => signalGroup("SIGKILL");
  process.once("exit", killOnExit);

  /** @type {Promise<void> | undefined} */
  let stopping;
  const stop = () =>
    (stopping ??= (async () => {
      signalGroup("SIGTERM");
      const timer = setTimeout(() => signalGroup("SIGKILL"), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
      signalGroup("SIGKILL");
      process.off("exit", killOnExit);
    })());

  const baseUrl = `http://${settings.host ?? "localhost"}:${httpPort}`;
  /** Waits until the API answers; rejects if the process exits first or `timeoutMs` passes. */
  const ready = async (timeoutMs = 60_000) => {
    let gone = false;
    void exited.then(() => (gone = true));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (gone) throw new Error("serverless-offline exited before answering HTTP");
      try {
        const probe = await fetch(`${baseUrl}/api/post`, { signal: AbortSignal.timeout(5_000) });
        await probe.arrayBuffer();
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`serverless-offline did not answer ${baseUrl}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  };
  return { child, pid, baseUrl, exited, ready, stop };
}

/** Calls `onLine` with each line of the child's standard output that is a JSON object. */
function readLogLines(
  /** @type {import("node:child_process").ChildProcess} */ child,
  /** @type {(line: Record<string, unknown>) => void} */ onLine,
) {
  let partial = "";
  child.stdout?.on("data", (/** @type {Buffer} */ chunk) => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.startsWith("{")) continue;
      try {
        onLine(JSON.parse(line));
      } catch {
        // not a log line of the service's: serverless-offline's own output
      }
    }
  });
  child.stderr?.resume(); // read and dropped, so a full pipe never stalls serverless-offline
}

/** Resident memory of a process in bytes (`ps`, so Linux and macOS alike). */
export async function rssOf(/** @type {number} */ pid) {
  const { stdout } = await promisify(execFile)("ps", ["-o", "rss=", "-p", String(pid)]);
  return Number(stdout) * 1024;
}

/**
 * The built bundles served as `npm start` serves them, on free ports, over an in-memory DynamoDB
 * Local with tables named `<prefix>-posts` and `<prefix>-idempotency-keys`; `stop()` ends both.
 */
export async function startLocalApi(
  /** @type {string} */ prefix,
  /** @type {{ onLogLine?: (line: Record<string, unknown>) => void }} */ { onLogLine } = {},
) {
  const db = await startDynamoDbLocal();
  try {
    const client = localClient(db.endpoint);
    await ensureTable(client, `${prefix}-posts`);
    await ensureIdempotencyTable(client, `${prefix}-idempotency-keys`);
    client.destroy();
    const offline = spawnOffline({
      host: "127.0.0.1",
      httpPort: await freePort(),
      lambdaPort: await freePort(),
      dynamoEndpoint: db.endpoint,
      postsTable: `${prefix}-posts`,
      idempotencyTable: `${prefix}-idempotency-keys`,
      // Without a reader, the request lines go nowhere: reading one per request costs this
      // process more than some requests cost the server.
      stdio: onLogLine ? "pipe" : "ignore",
      env: onLogLine ? { LOG_LEVEL: "info" } : {},
    });
    if (onLogLine) readLogLines(offline.child, onLogLine);
    const stop = async () => {
      await offline.stop();
      await db.stop();
    };
    await offline.ready().catch(async (error) => {
      await stop();
      throw error;
    });
    return { baseUrl: offline.baseUrl, rss: () => rssOf(offline.pid), stop };
  } catch (error) {
    await db.stop();
    throw error;
  }
}
