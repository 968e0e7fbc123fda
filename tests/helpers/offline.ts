// Test helper: the built bundles served by serverless-offline over a fresh table, and its shutdown.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { inject } from "vitest";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../scripts/lib/dynamodb-local.mjs";
import { parseOrigins } from "../../lib/http/cors.js";
import { startLocalFront } from "../../scripts/lib/local-front.mjs";
import { freePort } from "../../scripts/lib/ports.mjs";
import { type PostsTable, freshTable } from "./db.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** The serverless CLI (osls) installed in the repository. */
export const serverlessBin = `${root}node_modules/serverless/bin/serverless.js`;

const OUTPUT_KEPT_CHARS = 64 * 1024;
const STOP_GRACE_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface OfflineOptions {
  /** Names the fresh table after the test file. */
  label: string;
  /** The server's local time zone (`TIME_ZONE`, and `TZ` for the process). */
  timeZone?: string;
  /** How long serverless-offline may take to answer its first request. */
  readyTimeoutMs?: number;
  /** More settings for serverless-offline, such as CORS_ORIGINS or LOG_LEVEL (silent unless set). */
  env?: Record<string, string>;
  /** A DynamoDB Local of the test's own; the run's shared one by default. */
  dynamoEndpoint?: string;
}

/** A running serverless-offline and the table it serves. */
export interface Offline {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  baseUrl: string;
  /**
   * The Lambda Invoke API serverless-offline serves beside the HTTP one: a function called there
   * answers its result as it returned it, without serverless-offline's HTTP layer in between.
   */
  lambdaUrl: string;
  /** The fresh table behind the API, for looking at stored items directly. */
  table: PostsTable;
  timeZone: string;
  /** What serverless-offline printed so far (the last 64 KiB). */
  output(): string;
  /** Every line the functions wrote that is a JSON object (the service's log lines), parsed. */
  logLines(): Record<string, unknown>[];
  /** Stops serverless-offline (and everything it started), then drops the table. */
  stop(): Promise<void>;
}

/** Settings that change what the API answers: a test names them itself, never inherits them. */
const API_SETTINGS = [
  "AUTH_ISSUER_URL",
  "AUTH_AUDIENCE",
  "AUTH_WRITE_SCOPE",
  "AUTH_READS",
  "CORS_ORIGINS",
];

/** This process's environment less the settings that shape the API. */
function inheritedEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of API_SETTINGS) delete env[name];
  return env;
}

/** Starts serverless-offline (over the bundles global-setup built) over a fresh table; resolves once it answers HTTP. */
export async function startOffline({
  label,
  timeZone = "UTC",
  readyTimeoutMs = 60_000,
  env = {},
  dynamoEndpoint = inject("dynamoEndpoint"),
}: OfflineOptions): Promise<Offline> {
  const table = await freshTable(label, dynamoEndpoint);
  const [httpPort, lambdaPort] = [await freePort(), await freePort()];
  const child = spawn(
    process.execPath,
    [
      serverlessBin,
      ...["offline", "start", "--stage", "test", "--host", "127.0.0.1"],
      ...["--httpPort", String(httpPort), "--lambdaPort", String(lambdaPort)],
    ],
    {
      cwd: root,
      // Its own process group, so stop() reaches anything it spawns as well.
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...inheritedEnv(),
        POSTS_TABLE: table.tableName,
        IDEMPOTENCY_TABLE: table.idempotencyTableName,
        ...env,
        AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
        AWS_REGION: LOCAL_REGION,
        AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
        TIME_ZONE: timeZone,
        // serverless-offline runs handlers in worker threads, which share the process's zone:
        // the function's TZ setting alone would not reach them.
        TZ: timeZone,
        LOG_LEVEL: env.LOG_LEVEL ?? "silent",
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      },
    },
  );
  const pid = child.pid;
  if (pid === undefined) {
    await table.drop();
    throw new Error("serverless-offline could not be spawned");
  }

  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-OUTPUT_KEPT_CHARS);
  };
  const logLines: Record<string, unknown>[] = [];
  let partial = "";
  child.stdout.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line.startsWith("{")) logLines.push(JSON.parse(line) as Record<string, unknown>);
    }
  });
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );

  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  };
  // Last resort if the test process ends without afterAll (a crash, a killed worker).
  const killOnExit = () => signalGroup("SIGKILL");
  process.once("exit", killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      signalGroup("SIGTERM");
      const timer = setTimeout(() => signalGroup("SIGKILL"), STOP_GRACE_MS);
      await exit;
      clearTimeout(timer);
      signalGroup("SIGKILL"); // anything left in the group once its leader is gone
      process.off("exit", killOnExit);
      await table.drop();
    })());

  const offlineUrl = `http://127.0.0.1:${httpPort}`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (exited) {
      await stop();
      throw new Error(`serverless-offline exited before answering HTTP. Output:\n${output}`);
    }
    try {
      const probe = await fetch(`${offlineUrl}/api/post`, { signal: AbortSignal.timeout(5_000) });
      await probe.arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(
          `serverless-offline did not answer GET ${offlineUrl}/api/post within ` +
            `${readyTimeoutMs} ms. Output:\n${output}`,
        );
      }
      await sleep(200);
    }
  }
  // The requests go through npm start's front, as API Gateway's edge (scripts/lib/local-front.mjs).
  const corsOrigins = parseOrigins(env.CORS_ORIGINS);
  const front = await startLocalFront({ target: offlineUrl, host: "127.0.0.1", corsOrigins });
  const stopOffline = stop;
  return {
    baseUrl: front.url,
    lambdaUrl: `http://127.0.0.1:${lambdaPort}`,
    table,
    timeZone,
    output: () => output,
    logLines: () => logLines,
    stop: async () => {
      await front.stop();
      await stopOffline();
    },
  };
}
