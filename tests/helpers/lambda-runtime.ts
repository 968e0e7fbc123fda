// Test helper: a handler bundle run by the Lambda Node runtime's own client (aws-lambda-ric)
// against a Runtime API stub on loopback, so a test sees the bytes API Gateway would receive.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { buffer } from "node:stream/consumers";
import {
  RUNTIME_CLIENT_MISSING,
  runtimeClientInstalled,
  runtimeClientPath,
} from "../../scripts/runtime-client.mjs";
import { LAMBDA_RUNTIME, installRuntimeNode } from "../../scripts/runtime-node.mjs";

const INVOCATION = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/;
/** The content type `HttpResponseStream.from` gives an answer: JSON prelude, 8 NULs, body. */
export const PRELUDE_CONTENT_TYPE = "application/vnd.awslambda.http-integration-response";
const DELIMITER = Buffer.alloc(8);
// serverless.yml's timeout (ms) and memorySize for the functions.
const [DEFAULT_TIMEOUT_MS, DEFAULT_MEMORY_MB] = [10_000, "1024"];

/** What a streamed handler gave `HttpResponseStream.from`: what API Gateway answers with. */
export type Prelude = { statusCode?: number; headers?: Record<string, string>; cookies?: string[] };
type Failure = { errorType: string; errorMessage: string };

/** `raw`: every byte POSTed; ms from handing out the event to the first byte and to the end. */
type Measured = { requestId: string; raw: Buffer; firstByteMs?: number; totalMs: number };

/** One invocation as the Runtime API saw it. */
export type Invocation = Measured &
  (
    | {
        kind: "streamed";
        contentType: string;
        /** Undefined when not prelude-typed, or when it failed before its first byte. */
        prelude: Prelude | undefined;
        body: Buffer;
        /** False when error trailers ended it, or a timeout or the runtime's exit cut it. */
        complete: boolean;
        errorType?: string;
        errorMessage?: string;
      }
    | { kind: "buffered"; result: unknown }
    | { kind: "error"; errorType: string; errorMessage: string }
  );

export interface LambdaRuntimeOptions {
  /** The function's folder (LAMBDA_TASK_ROOT) and `_HANDLER` (file and export). */
  bundleDir: string;
  handler?: string;
  /** The function's settings, over what Lambda sets (AWS_LAMBDA_LOG_FORMAT, NODE_OPTIONS, ...). */
  env?: Record<string, string>;
}

/** A running runtime and its Runtime API stub. */
export interface LambdaRuntime {
  /** Queues an event; past `timeoutMs` (the function's timeout) the runtime is killed. */
  invoke(event: unknown, options?: { timeoutMs?: number }): Promise<Invocation>;
  /** Every line the runtime wrote to stdout or stderr so far, across restarts. */
  logs(): string[];
  /** The runtime's pid; a new one once a timeout or crash made the next invoke restart it. */
  readonly pid: number | undefined;
  /** ms from spawn to the runtime's first `next`: its init, the handler's import included. */
  initMs(): number | undefined;
  /** VmRSS and VmHWM (its peak) from /proc/<pid>/status. */
  memory(): { rssBytes: number; peakRssBytes: number };
  /** Kills every runtime process it started and closes the stub. */
  stop(): Promise<void>;
}

/** An invoke queued or under way; `posting` is its response or error POST. */
type Pending = { id: string; event: unknown; timeoutMs: number; chunks: Buffer[] } & {
  resolve(invocation: Invocation): void;
  reject(error: Error): void;
  handedAt: number;
  firstByteAt?: number;
  posting?: IncomingMessage;
  timer?: NodeJS.Timeout;
};

/** Whether a file should skip without the runtime client; in CI a missing client fails instead. */
export function skipWithoutRuntimeClient(): boolean {
  if (runtimeClientInstalled()) return false;
  if (process.env.CI) throw new Error(RUNTIME_CLIENT_MISSING);
  console.warn(`${RUNTIME_CLIENT_MISSING}; skipping this file`);
  return true;
}

/** Splits a prelude-typed body at its first 8 NULs; throws when they are missing. */
export function splitPrelude(raw: Buffer): { prelude: Prelude; body: Buffer } {
  const at = raw.indexOf(DELIMITER);
  if (at < 0) {
    const start = JSON.stringify(raw.subarray(0, 120).toString("utf8"));
    throw new Error(`${PRELUDE_CONTENT_TYPE} answer without the 8 NUL bytes: ${start}`);
  }
  return {
    prelude: JSON.parse(raw.subarray(0, at).toString("utf8")) as Prelude,
    body: raw.subarray(at + DELIMITER.length),
  };
}

/** Starts the stub and the runtime (under Lambda's Node, whatever Node runs the tests). */
export async function startLambdaRuntime({
  bundleDir,
  handler = "index.handler",
  env = {},
}: LambdaRuntimeOptions): Promise<LambdaRuntime> {
  const node = installRuntimeNode();
  const queue: Pending[] = [];
  const lines: string[] = [];
  const alive = new Set<ChildProcess>();
  let current: Pending | undefined;
  let polling: ServerResponse | undefined; // the runtime's open `next`, answered by handOut
  let child: ChildProcess | undefined;
  let spawnedAt = 0;
  let initMs: number | undefined;
  let initError: string | undefined;
  // A runtime that died with no invoke waiting: the next invoke gets its error; the one after retries.
  let unseenFailure: Error | undefined;
  let stopped = false;

  const settle = (pending: Pending, build: () => Invocation) => {
    if (current !== pending) return;
    clearTimeout(pending.timer);
    current = undefined;
    try {
      pending.resolve(build());
    } catch (error) {
      pending.reject(error as Error);
    }
    handOut();
  };
  const cut = (pending: Pending, failure: Failure) =>
    settle(pending, () =>
      pending.posting
        ? answer(pending, pending.posting, failure)
        : { ...measure(pending), kind: "error", ...failure },
    );
  // Lambda resets a sandbox whose runtime timed out or exited: a fresh one takes what is queued.
  const restart = () => {
    child = polling = undefined;
    if (queue.length > 0 && !stopped) spawnRuntime();
  };
  const failQueue = (error: Error) => queue.splice(0).forEach((pending) => pending.reject(error));

  // One invocation at a time, as a Lambda sandbox runs them: the next waits for the runtime's `next`.
  const handOut = () => {
    const res = polling;
    if (current || !res) return;
    const next = queue.shift();
    if (!next) return;
    polling = undefined;
    current = next;
    next.handedAt = performance.now();
    next.timer = setTimeout(() => {
      const errorMessage = `Task timed out after ${next.timeoutMs} ms`;
      cut(next, { errorType: "Sandbox.Timedout", errorMessage });
      child?.kill("SIGKILL");
      restart();
    }, next.timeoutMs);
    res.writeHead(200, {
      "Content-Type": "application/json",
      "Lambda-Runtime-Aws-Request-Id": next.id,
      "Lambda-Runtime-Deadline-Ms": String(Date.now() + next.timeoutMs),
      "Lambda-Runtime-Invoked-Function-Arn": functionArn(runtimeEnv),
      "Lambda-Runtime-Trace-Id": traceId(),
    });
    res.end(JSON.stringify(next.event ?? null));
  };

  const server = createServer((req, res) => {
    const url = req.url ?? "";
    if (req.method === "GET" && url === "/2018-06-01/runtime/invocation/next") {
      initMs ??= performance.now() - spawnedAt;
      polling = res;
      return handOut();
    }
    if (req.method === "POST" && url === "/2018-06-01/runtime/init/error") {
      void buffer(req).then((body) => {
        const { errorType, errorMessage } = parseError(body);
        initError = `${errorType}: ${errorMessage}`;
        accept(res);
      });
      return;
    }
    const [, id, kind] = INVOCATION.exec(url) ?? [];
    const pending = current;
    if (req.method !== "POST" || !id || !pending || decodeURIComponent(id) !== pending.id) {
      res.writeHead(id ? 400 : 404).end();
      return;
    }
    pending.posting = req;
    // A cut POST errors too; the runtime's exit (or the timeout) settles the invocation.
    req.on("error", () => {});
    req.on("data", (chunk: Buffer) => {
      pending.firstByteAt ??= performance.now();
      pending.chunks.push(chunk);
    });
    req.on("end", () => {
      accept(res);
      settle(pending, () =>
        kind === "error"
          ? { ...measure(pending), kind: "error", ...parseError(Buffer.concat(pending.chunks)) }
          : answer(pending, req, trailerError(req)),
      );
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const runtimeEnv = lambdaEnv(env, (server.address() as AddressInfo).port, handler, bundleDir);

  const spawnRuntime = () => {
    spawnedAt = performance.now();
    initMs = initError = unseenFailure = undefined;
    const proc = spawn(node, [runtimeClientPath], {
      cwd: runtimeEnv.LAMBDA_TASK_ROOT,
      env: runtimeEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    alive.add(proc);
    for (const input of [proc.stdout, proc.stderr]) {
      createInterface({ input }).on("line", (line) => lines.push(line));
    }
    // "close" rather than "exit": by then the last lines (an init error's stack) are read.
    proc.once("close", (code, signal) => {
      alive.delete(proc);
      if (child !== proc) return; // killed on purpose; already accounted for
      const how = `the runtime exited (${signal ?? `code ${code}`})`;
      if (current) {
        cut(current, { errorType: "Runtime.ExitError", errorMessage: how });
        return restart();
      }
      child = polling = undefined;
      const cause = initMs === undefined ? `Lambda init failed: ${initError ?? how}` : how;
      const failure = new Error(`${cause}\nLast lines:\n${lines.slice(-20).join("\n")}`);
      if (queue.length > 0) failQueue(failure);
      else unseenFailure = failure;
    });
    child = proc;
  };
  const killOnExit = () => alive.forEach((proc) => proc.kill("SIGKILL"));
  process.once("exit", killOnExit);
  spawnRuntime();

  return {
    invoke: (event, { timeoutMs = DEFAULT_TIMEOUT_MS } = {}) =>
      new Promise((resolve, reject) => {
        if (stopped) return reject(new Error("the Lambda runtime harness is stopped"));
        const failure = unseenFailure;
        unseenFailure = undefined;
        if (failure) return reject(failure);
        const id = randomUUID();
        queue.push({ id, event, timeoutMs, resolve, reject, chunks: [], handedAt: 0 });
        if (!child) spawnRuntime();
        handOut();
      }),
    logs: () => [...lines],
    initMs: () => initMs,
    memory: () => {
      if (!child?.pid) throw new Error("the runtime is not running");
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      const kib = (field: string) =>
        Number(new RegExp(`^${field}:\\s*(\\d+) kB`, "m").exec(status)?.[1]) * 1024;
      return { rssBytes: kib("VmRSS"), peakRssBytes: kib("VmHWM") };
    },
    get pid() {
      return child?.pid;
    },
    stop: async () => {
      stopped = true;
      child = undefined;
      await Promise.all([...alive].map((proc) => (proc.kill("SIGKILL"), once(proc, "close"))));
      process.off("exit", killOnExit);
      const stoppedError = new Error("the Lambda runtime harness was stopped");
      if (current) {
        clearTimeout(current.timer);
        current.reject(stoppedError);
        current = undefined;
      }
      failQueue(stoppedError);
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}

/** The environment Lambda gives a function, then the test's settings, then the stub's address. */
function lambdaEnv(env: Record<string, string>, port: number, handler: string, dir: string) {
  const name = env.AWS_LAMBDA_FUNCTION_NAME ?? "test-function";
  return {
    PATH: process.env.PATH ?? "",
    LANG: "en_US.UTF-8",
    TZ: ":UTC",
    AWS_REGION: "us-east-1",
    AWS_EXECUTION_ENV: `AWS_Lambda_${LAMBDA_RUNTIME}`,
    AWS_LAMBDA_FUNCTION_NAME: name,
    AWS_LAMBDA_FUNCTION_VERSION: "$LATEST",
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: DEFAULT_MEMORY_MB,
    AWS_LAMBDA_INITIALIZATION_TYPE: "on-demand",
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${name}`,
    AWS_LAMBDA_LOG_STREAM_NAME: `2026/01/01/[$LATEST]${hex(16)}`,
    ...env,
    AWS_LAMBDA_RUNTIME_API: `127.0.0.1:${port}`,
    _HANDLER: handler,
    LAMBDA_TASK_ROOT: resolve(dir),
  };
}

const functionArn = (env: { AWS_REGION: string; AWS_LAMBDA_FUNCTION_NAME: string }) =>
  `arn:aws:lambda:${env.AWS_REGION}:123456789012:function:${env.AWS_LAMBDA_FUNCTION_NAME}`;
const hex = (bytes: number) => randomBytes(bytes).toString("hex");
const traceId = () =>
  `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${hex(12)};Parent=${hex(8)};Sampled=0`;

function measure(pending: Pending): Measured {
  const { firstByteAt, handedAt } = pending;
  return {
    requestId: pending.id,
    raw: Buffer.concat(pending.chunks),
    firstByteMs: firstByteAt === undefined ? undefined : firstByteAt - handedAt,
    totalMs: performance.now() - handedAt,
  };
}

/** A response POST (streamed or buffered) read into an invocation; `failure` marks it incomplete. */
function answer(pending: Pending, req: IncomingMessage, failure?: Failure): Invocation {
  const measured = measure(pending);
  if (req.headers["lambda-runtime-function-response-mode"] !== "streaming") {
    if (failure) return { ...measured, kind: "error", ...failure };
    return { ...measured, kind: "buffered", result: JSON.parse(measured.raw.toString("utf8")) };
  }
  const contentType = req.headers["content-type"] ?? "";
  // A complete answer must hold the delimiter; one that failed may stop before it.
  const split =
    contentType === PRELUDE_CONTENT_TYPE && (!failure || measured.raw.includes(DELIMITER))
      ? splitPrelude(measured.raw)
      : undefined;
  return {
    ...measured,
    kind: "streamed",
    contentType,
    prelude: split?.prelude,
    body: split?.body ?? measured.raw,
    complete: !failure,
    ...failure,
  };
}

/** The error the runtime put in a streamed answer's trailers (its body is base64 JSON). */
function trailerError(req: IncomingMessage): Failure | undefined {
  const body = req.trailers["lambda-runtime-function-error-body"];
  if (body === undefined) return undefined;
  const { errorMessage } = parseError(Buffer.from(body, "base64"));
  const errorType = req.trailers["lambda-runtime-function-error-type"] ?? "Unknown";
  return { errorType, errorMessage };
}

/** The runtime's `{errorType, errorMessage, trace}`; a body that is not that JSON is the message. */
function parseError(body: Buffer | string): Failure {
  try {
    const { errorType, errorMessage } = JSON.parse(body.toString()) as Partial<Failure>;
    return { errorType: errorType ?? "Unknown", errorMessage: errorMessage ?? "" };
  } catch {
    return { errorType: "Unknown", errorMessage: body.toString() };
  }
}

const accept = (res: ServerResponse) =>
  res.writeHead(202, { "Content-Type": "application/json" }).end('{"status":"OK"}');
