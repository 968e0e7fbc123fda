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
  /** The server's zone (`TIME_ZONE`, and `TZ` for the process); UTC by default. */
  timeZone?: string;
  /** More settings, such as CORS_ORIGINS or LOG_LEVEL (silent unless set). */
  env?: Record<string, string>;
  /** A DynamoDB Local of the test's own; the run's shared one by default. */
  dynamoEndpoint?: string;
}

/** A running serverless-offline and the table it serves. */
export interface Offline {
  /** `http://127.0.0.1:<port>`, without a trailing slash: npm start's front before it. */
  baseUrl: string;
  /** serverless-offline's Lambda Invoke API: a function's result as it returned it. */
  lambdaUrl: string;
  table: OpenTable;
  timeZone: string;
  /** What serverless-offline printed since this test had it (the last 64 KiB). */
  output(): string;
  /** The JSON object lines (the log lines) among them, parsed. */
  logLines(): Record<string, unknown>[];
  /** Stops serverless-offline and drops the table, or hands it back to the pool. */
  stop(): Promise<void>;
}

/** Settings that change what the API answers: a test names them itself, never inherits them. */
const API_SETTINGS = /^(AUTH_(ISSUER_URL|AUDIENCE|WRITE_SCOPE|READS)|CORS_ORIGINS)$/;

/** What a served instance is, in a form that crosses processes (the pool hands it to a lease). */
export interface ServedInfo {
  baseUrl: string;
  offlineUrl: string;
  lambdaUrl: string;
  tableName: string;
  idempotencyTableName: string;
  timeZone: string;
  /** serverless-offline's output, both streams. */
  logFile: string;
}

/** serverless-offline over the tables, in its own process group, behind npm start's front. */
export async function serve(
  options: Omit<OfflineOptions, "label"> & {
    dynamoEndpoint: string;
    tableName: string;
    idempotencyTableName: string;
  },
): Promise<ServedInfo & { stop(): Promise<void> }> {
  const { timeZone = "UTC", env = {}, dynamoEndpoint } = options;
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
      detached: true, // its own process group, so stop() reaches anything it spawns
      stdio: ["ignore", log, log],
      env: {
        ...Object.fromEntries(
          Object.entries(process.env).filter(([name]) => !API_SETTINGS.test(name)),
        ),
        POSTS_TABLE: options.tableName,
        IDEMPOTENCY_TABLE: options.idempotencyTableName,
        ...env,
        AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
        AWS_REGION: LOCAL_REGION,
        AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
        TIME_ZONE: timeZone,
        // Handlers run in worker threads, which share the process's zone.
        TZ: timeZone,
        LOG_LEVEL: env.LOG_LEVEL ?? "silent",
      },
    },
  );
  closeSync(log);
  // Stopped with its whole group, and killed if this process ends first.
  const offline = supervise(child, "serverless-offline");
  let front: Awaited<ReturnType<typeof startLocalFront>> | undefined = undefined;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await front?.stop();
      await offline.stop();
      rmSync(logFile, { force: true });
    })());

  const offlineUrl = `http://127.0.0.1:${httpPort}`;
  // Its own "Server ready" line first: another process that took the same free port would answer.
  let listening = false;
  const answers = async () => {
    listening ||= readFileSync(logFile, "utf8").includes(`Server ready: ${offlineUrl} `);
    if (!listening) return false;
    const probe = fetch(`${offlineUrl}/api/post`, { signal: AbortSignal.timeout(5_000) });
    return probe.then((answer) => answer.arrayBuffer().then(() => true)).catch(() => false);
  };
  try {
    await offline.ready(answers, 60_000);
  } catch (error) {
    const output = readFileSync(logFile, "utf8").slice(-OUTPUT_KEPT_CHARS);
    await stop();
    throw new Error(`${(error as Error).message}. Output:\n${output}`);
  }
  // Requests go through npm start's front, as through API Gateway's edge.
  const corsOrigins = parseOrigins(env.CORS_ORIGINS);
  front = await startLocalFront({ target: offlineUrl, host: "127.0.0.1", corsOrigins });
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
  const tables = { dynamoEndpoint, tableName, idempotencyTableName };
  const served = await serve({ ...options, ...tables }).catch(async (error: unknown) => {
    await table.drop();
    throw error;
  });
  const { baseUrl, lambdaUrl, timeZone, logFile } = served;
  const stop = async () => {
    await served.stop();
    await table.drop();
  };
  return { baseUrl, lambdaUrl, table, timeZone, ...outputSince(logFile, 0), stop };
}

/** How long a file's beforeAll may wait for its lease, behind other files of its configuration. */
export const LEASE_WAIT_MS = 300_000;

/** One of the run's shared instances of `config`, with no post, this file's until `stop()`. */
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

/** A leased instance: where its output starts for the file that leased it. */
export type LeaseInfo = ServedInfo & { logOffset: number };

/** Asks the pool for an instance; resolves with it once granted, holding the lease open. */
function lease(url: string) {
  return new Promise<{ info: LeaseInfo; release(): Promise<void> }>((resolve, reject) => {
    const asked = request(url, { agent: false }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      const onData = (chunk: string) => {
        text += chunk;
        if (!text.includes("\n")) return;
        response.off("data", onData);
        const released = new Promise<void>((done) => response.once("close", done));
        const release = () => (asked.destroy(), released);
        resolve({ info: JSON.parse(text) as LeaseInfo, release });
      };
      response.on("data", onData);
      response.once("end", () => reject(new Error(`the offline pool refused: ${text}`)));
    });
    asked.once("error", reject);
    asked.end();
  });
}
