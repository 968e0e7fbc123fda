// Logging: one JSON object per line with Powertools Logger's keys, so CloudWatch Logs Insights
// queries written for Powertools work here, without its code in the bundle (docs/design.md, Logs).
import type { Context } from "aws-lambda";

/** Which lines are written: every one, errors only, or none. */
export type LogLevel = "info" | "error" | "silent";

export type LogFields = Record<string, unknown>;

/** Writes structured log lines at or above the configured level. */
export interface Logger {
  info(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** What Lambda tells a function about itself and the invocation; absent outside Lambda. */
export type InvocationContext = Partial<
  Pick<Context, "functionName" | "memoryLimitInMB" | "invokedFunctionArn" | "awsRequestId">
>;

/** Where a logger's lines go: standard output, or nowhere for lines only formatted. */
export type LineSink = Pick<NodeJS.WritableStream, "write">;

/**
 * A logger that writes JSON lines to `sink`, standard output (CloudWatch on Lambda) by default.
 * Node builds `process.stdout` on its first read: taking it here, when the instance is wired,
 * keeps that work off the first request.
 */
export function createLogger(
  level: LogLevel,
  service = "blog-post-api",
  sink: LineSink = process.stdout,
): Logger {
  const write = (lvl: "INFO" | "ERROR", message: string, fields?: LogFields): void => {
    const line = { level: lvl, message, timestamp: new Date().toISOString(), service, ...fields };
    sink.write(`${JSON.stringify(line)}\n`);
  };
  return {
    info: (message, fields) => {
      if (level === "info") write("INFO", message, fields);
    },
    error: (message, fields) => {
      if (level !== "silent") write("ERROR", message, fields);
    },
  };
}

/** The X-Ray trace id (`Root=` of `_X_AMZN_TRACE_ID`), as Powertools logs it. */
function xrayTraceId(): string | undefined {
  // Unset, the variable reads as "undefined", which holds no Root.
  return /(?:^|;)Root=([^;]+)/.exec(String(process.env._X_AMZN_TRACE_ID))?.[1];
}

/** Powertools Logger's per-invocation keys; a key whose value is unknown is left out. */
export function invocationFields(context: InvocationContext | undefined, coldStart: boolean) {
  const memory = Number(context?.memoryLimitInMB);
  return {
    cold_start:
      coldStart && process.env.AWS_LAMBDA_INITIALIZATION_TYPE !== "provisioned-concurrency",
    function_name: context?.functionName,
    function_memory_size: Number.isFinite(memory) ? memory : undefined,
    function_arn: context?.invokedFunctionArn,
    function_request_id: context?.awsRequestId,
    xray_trace_id: xrayTraceId(),
  };
}
