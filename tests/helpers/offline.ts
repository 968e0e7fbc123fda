// Test helper: the built bundles served by serverless-offline behind npm start's front, over a
// table of their own (startOffline) or leased from the run's shared instances (leaseOffline).
import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { inject } from "vitest";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../scripts/lib/dynamodb-local.mjs";
import { parseOrigins } from "../../lib/shared/settings.js";
import { startLocalFront } from "../../scripts/lib/local-front.mjs";
import { freePort } from "../../scripts/lib/ports.mjs";
import { supervise } from "../../scripts/lib/processes.mjs";
import { type OpenTable, freshTable, openTable } from "./db.js";
import type { SharedConfig } from "./offline-configs.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** The serverless CLI (osls) installed in the repository. */
export const serverlessBin = `${root}node_modules/serverless/bin/serverless.js`;

const OUTPUT_KEPT_CHARS = 64 * 1024;

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
  /** `http://127.0.0.1:<port>`, without a trailing slash: npm start's front before it. */
  baseUrl: string;
  /**
   * The Lambda Invoke API serverless-offline serves beside the HTTP one: a function called there
   * answers its result as it returned it, without serverless-offline's HTTP layer in between.
   */
  lambdaUrl: string;
  /** The table behind the API, for looking at stored items directly. */
  table: OpenTable;
  timeZone: string;
  /** What serverless-offline printed since this test had it (the last 64 KiB). */
  output(): string;
  /** Every line the functions wrote since then that is a JSON object (the log lines), parsed. */
  logLines(): Record<string, unknown>[];
  /** Stops serverless-offline (and everything it started) and drops the table, or hands it back. */
  stop(): Promise<void>;
}

/** Settings that change what the API answers: a test names them itself, never inherits them. */
const API_SETTINGS = [
  ...["AUTH_ISSUER_URL", "AUTH_AUDIENCE", "AUTH_WRITE_SCOPE", "AUTH_READS", "CORS_ORIGINS"],
];

/** This process's environment less the settings that shape the API. */
function inheritedEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of API_SETTINGS) delete env[name];
  return env;
}

/** What a served instance is, in a form that crosses processes (the pool hands it to a lease). */
export interface ServedInfo {
  baseUrl: string;
  offlineUrl: string;
  lambdaUrl: string;
  tableName: string;
  idempotencyTableName: string;
  timeZone: string;
  /** serverless-offline's output, both streams, written by the process itself. */
  logFile: string;
}

/**
 * serverless-offline over the given tables, in its own process group, with npm start's front
 * before it; resolves once it answers HTTP. `stop()` ends both and removes the log file.
 */
export async function serve(
  options: Omit<OfflineOptions, "label"> & {
    dynamoEndpoint: string;
    tableName: string;
    idempotencyTableName: string;
  },
): Promise<ServedInfo & { stop(): Promise<void> }> {
  const { timeZone = "UTC", readyTimeoutMs = 60_000, env = {}, dynamoEndpoint } = options;
  const [httpPort, lambdaPort] = [await freePort(), await freePort()];
  const logFile = join(tmpdir(), `offline-${process.pid}-${httpPort}.log`);
  const log = openSync(logFile, "w");
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
      stdio: ["ignore", log, log],
      env: {
        ...inheritedEnv(),
        POSTS_TABLE: options.tableName,
        IDEMPOTENCY_TABLE: options.idempotencyTableName,
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
      },
    },
  );
  closeSync(log);
  // Stopped with its whole group, and killed still if this process ends first.
  const offline = supervise(child, "serverless-offline");
  const held: { front?: Awaited<ReturnType<typeof startLocalFront>> } = {};
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await held.front?.stop();
      await offline.stop();
      rmSync(logFile, { force: true });
    })());

  const offlineUrl = `http://127.0.0.1:${httpPort}`;
  // Its own line saying it listens on the port first: another process that picked the same free
  // port before serverless-offline listened on it would answer the probe.
  let listening = false;
  const answers = async () => {
    listening ||= readFileSync(logFile, "utf8").includes(`Server ready: ${offlineUrl} `);
    if (!listening) return false;
    const probe = fetch(`${offlineUrl}/api/post`, { signal: AbortSignal.timeout(5_000) });
    return probe.then((answer) => answer.arrayBuffer().then(() => true)).catch(() => false);
  };
  try {
    await offline.ready(answers, readyTimeoutMs);
  } catch (error) {
    const output = readFileSync(logFile, "utf8").slice(-OUTPUT_KEPT_CHARS);
    await stop();
    throw new Error(`${(error as Error).message}. Output:\n${output}`);
  }
  // The requests go through npm start's front, as API Gateway's edge (scripts/lib/local-front.mjs).
  const corsOrigins = parseOrigins(env.CORS_ORIGINS);
  const front = await startLocalFront({ target: offlineUrl, host: "127.0.0.1", corsOrigins });
  held.front = front;
  const { tableName, idempotencyTableName } = options;
  const lambdaUrl = `http://127.0.0.1:${lambdaPort}`;
  const served = { baseUrl: front.url, offlineUrl, lambdaUrl, tableName, idempotencyTableName };
  return { ...served, timeZone, logFile, stop };
}

/** The output and log lines a test sees: what the process wrote to its file from `from` on. */
function outputSince(logFile: string, from: number) {
  const since = () => readFileSync(logFile).subarray(from).toString("utf8");
  return {
    output: () => since().slice(-OUTPUT_KEPT_CHARS),
    logLines: () =>
      since()
        .split("\n")
        .filter((line) => line.startsWith("{") && line.endsWith("}"))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

/** Starts serverless-offline of the test's own over a fresh table; `stop()` drops the table. */
export async function startOffline(options: OfflineOptions): Promise<Offline> {
  const dynamoEndpoint = options.dynamoEndpoint ?? inject("dynamoEndpoint");
  const table = await freshTable(options.label, dynamoEndpoint);
  const { tableName, idempotencyTableName } = table;
  let served;
  try {
    served = await serve({ ...options, dynamoEndpoint, tableName, idempotencyTableName });
  } catch (error) {
    await table.drop();
    throw error;
  }
  const { baseUrl, lambdaUrl, timeZone, logFile } = served;
  const stop = async () => {
    await served.stop();
    await table.drop();
  };
  return { baseUrl, lambdaUrl, table, timeZone, ...outputSince(logFile, 0), stop };
}

/**
 * How long a file's beforeAll may wait for its lease: behind the other files of its configuration
 * (at most two run at once), whose own length it cannot know.
 */
export const LEASE_WAIT_MS = 300_000;

/**
 * One of the run's shared instances of `config` (tests/helpers/offline-configs.ts), this file's
 * alone until `stop()`: its table holds no post when leased, and other files wait for it. The
 * lease is an open request to the pool in vitest's own process, so it ends with this process too.
 */
export async function leaseOffline(config: SharedConfig): Promise<Offline> {
  const { info, release } = await lease(`${inject("offlinePool")}/lease/${config}`);
  const table = openTable(info.tableName, info.idempotencyTableName, inject("dynamoEndpoint"));
  const { baseUrl, lambdaUrl, timeZone, logFile, logOffset } = info;
  const stop = async () => {
    table.close();
    await release();
  };
  return { baseUrl, lambdaUrl, table, timeZone, ...outputSince(logFile, logOffset), stop };
}

/** Asks the pool for an instance; resolves with it once granted, holding the lease open. */
function lease(url: string) {
  return new Promise<{ info: ServedInfo & { logOffset: number }; release(): Promise<void> }>(
    (resolve, reject) => {
      const asked = request(url, { agent: false }, (response) => {
        let text = "";
        response.setEncoding("utf8");
        const onData = (chunk: string) => {
          text += chunk;
          if (!text.includes("\n")) return;
          response.off("data", onData);
          const released = new Promise<void>((done) => response.once("close", done));
          const release = () => (asked.destroy(), released);
          resolve({ info: JSON.parse(text) as ServedInfo & { logOffset: number }, release });
        };
        response.on("data", onData);
        response.once("end", () => reject(new Error(`the offline pool refused: ${text}`)));
      });
      asked.once("error", reject);
      asked.end();
    },
  );
}
