// serverless-offline as `npm start` runs it, shared with `npm run load` and the tests that load it,
// so what is measured is what a developer runs.
import { execFile, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import * as local from "./dynamodb-local.mjs";
import { freePort } from "./ports.mjs";
import { supervise } from "./processes.mjs";

const serverlessBin = createRequire(import.meta.url).resolve("serverless/bin/serverless.js");

/**
 * Each bundle loaded once in serverless-offline's process and reused, as a warm Lambda instance
 * is: `--reloadHandler` makes every request a cold start, and the default (a worker thread per
 * request in flight, ~25 MB each) grew past 1 GB under load. New code comes by a restart.
 */
const FUNCTION_OPTIONS = ["--terminateIdleLambdaTime", "60", "--useInProcess"];

/**
 * Starts serverless-offline over the bundles in dist/ in its own process group, so that `stop()`
 * reaches everything it started; `ready()` waits until it answers HTTP.
 * @param {{ httpPort: number, lambdaPort: number, dynamoEndpoint: string, postsTable: string,
 *   idempotencyTable: string, host?: string, timeZone?: string, stdio?: "inherit" | "pipe" | "ignore",
 *   env?: Record<string, string | undefined> }} settings env: more, such as LOG_LEVEL
 */
export function spawnOffline(settings) {
  const { host = "localhost", timeZone = "UTC", stdio = "inherit" } = settings;
  const ports = ["--httpPort", settings.httpPort, "--lambdaPort", settings.lambdaPort].map(String);
  const args = [serverlessBin, "offline", "start", "--stage", "local", "--host", host, ...ports];
  const child = spawn(process.execPath, [...args, ...FUNCTION_OPTIONS], {
    cwd: new URL("../..", import.meta.url),
    detached: true,
    stdio: ["ignore", stdio, stdio],
    env: {
      ...process.env,
      ...settings.env,
      POSTS_TABLE: settings.postsTable,
      IDEMPOTENCY_TABLE: settings.idempotencyTable,
      TIME_ZONE: timeZone,
      TZ: timeZone, // the functions run in this process, whose zone is theirs
      AWS_ENDPOINT_URL_DYNAMODB: settings.dynamoEndpoint,
      AWS_REGION: local.LOCAL_REGION,
      AWS_ACCESS_KEY_ID: local.LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: local.LOCAL_CREDENTIALS.secretAccessKey,
    },
  });
  const offline = supervise(child, "serverless-offline");
  const baseUrl = `http://${host}:${settings.httpPort}`;
  const answers = () =>
    fetch(`${baseUrl}/api/post`, { signal: AbortSignal.timeout(5_000) }).then(
      (probe) => probe.arrayBuffer().then(() => true),
      () => false,
    );
  return { ...offline, baseUrl, ready: (timeoutMs = 60_000) => offline.ready(answers, timeoutMs) };
}

/** Resident memory of a process in bytes (`ps`, so Linux and macOS alike). */
export async function rssOf(/** @type {number} */ pid) {
  const { stdout } = await promisify(execFile)("ps", ["-o", "rss=", "-p", String(pid)]);
  return Number(stdout) * 1024;
}

/**
 * The bundles served as `npm start` serves them, over DynamoDB Local with both tables (data in
 * `dbPath`, else in memory), on the ports given or free ones. With `onLogLine`, each line the
 * functions print that is a JSON object goes there rather than to the terminal. `restart()` serves
 * the bundles anew; `onExit` hears of serverless-offline ending on its own; `stop()` ends both.
 * `reserved`: ports the caller will listen on later, which serverless-offline must not take.
 * @param {{ posts: string, keys: string, dbPath?: string, dynamoPort?: number, reserved?: number[],
 *   lambdaPort?: number, timeZone?: string, onExit?: (code: number | null) => void,
 *   onLogLine?: (line: Record<string, unknown>) => void }} options
 */
export async function startLocalApi(options) {
  const { onLogLine } = options;
  const db = await local.startDynamoDbLocal({ port: options.dynamoPort, dbPath: options.dbPath });
  /** @type {ReturnType<typeof spawnOffline> | undefined} */
  let offline;
  const end = async () => {
    const last = offline;
    offline = undefined; // so that its exit, asked for, is not told to onExit
    await last?.stop();
  };
  const stop = () => end().then(db.stop);
  const lambdaPort = options.lambdaPort ?? (await freePort());
  // A port nothing listens on yet may still be one the caller is about to listen on.
  let httpPort;
  do httpPort = await freePort();
  while ([lambdaPort, ...(options.reserved ?? [])].includes(httpPort));
  let serving = false; // once it first answered: an early end is the start's failure, not onExit's
  const serve = async () => {
    await end();
    const started = (offline = spawnOffline({
      host: "127.0.0.1",
      timeZone: options.timeZone,
      httpPort,
      lambdaPort,
      dynamoEndpoint: db.endpoint,
      postsTable: options.posts,
      idempotencyTable: options.keys,
      stdio: onLogLine ? "pipe" : "inherit",
      env: onLogLine ? { LOG_LEVEL: "info" } : {},
    }));
    started.child.stderr?.resume(); // read and dropped, so that a full pipe never stalls it
    if (onLogLine && started.child.stdout) {
      createInterface({ input: started.child.stdout }).on("line", (line) => {
        try {
          if (line.startsWith("{")) onLogLine(JSON.parse(line));
        } catch {
          // not a line of the service's: serverless-offline's own output
        }
      });
    }
    // Heard before it answers: a restart that dies on the way ends `npm start` too.
    void started.exited.then((code) => offline === started && serving && options.onExit?.(code));
    await started.ready(120_000);
  };
  const client = local.localClient(db.endpoint);
  try {
    await local.ensureTable(client, options.posts);
    await local.ensureIdempotencyTable(client, options.keys);
    await serve();
    serving = true;
  } catch (error) {
    await stop();
    throw error;
  } finally {
    client.destroy();
  }
  const baseUrl = `http://127.0.0.1:${httpPort}`;
  return { db, baseUrl, rss: () => rssOf(offline?.pid ?? 0), restart: serve, stop };
}
