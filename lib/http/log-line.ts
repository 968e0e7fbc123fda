// The request's one log line, written once its answer is sent (or failed on the way): who asked
// what, the status, the time, and the request's metrics (metrics.ts), so the line is also an EMF
// document. A server fault is an error line with the cause.
import type { Logger, invocationFields } from "./logger.js";
import { requestMetrics } from "./metrics.js";
import type { ApiRequest } from "./request.js";
import { type Outgoing, textOf } from "./response.js";

/** The function's name in a line when there is no Lambda context (tests): a metric dimension needs one. */
const NO_FUNCTION_NAME = "unknown";

/** What the line tells of the request, gathered as it went through the pipeline. */
export interface RequestRecord {
  /** The request; its scope's counts are what storage counted for it (named by storage). */
  request: Pick<ApiRequest, "method" | "route" | "requestId" | "pathId" | "scope">;
  invocation: ReturnType<typeof invocationFields>;
  /** `performance.now()` when the request arrived. */
  started: number;
}

/** How the request ended besides its answer: what failed, and whether the answer was cut. */
export interface Ending {
  failure?: unknown;
  cut?: boolean;
}

/** The log line's error member: the cause a wrapped error carries, else the error itself. */
function errorFields(failure: unknown, fallback: () => string) {
  const err = failure instanceof Error ? failure : new Error(fallback());
  const cause = err.cause instanceof Error ? err.cause : err;
  return { name: cause.name, message: cause.message, stack: cause.stack };
}

/** Writes the request's line for `sent`, the answer as sent or as far as it went. */
export function logRequest(logger: Logger, record: RequestRecord, sent: Outgoing, end: Ending) {
  const { request, invocation, started } = record;
  const status = sent.statusCode;
  const durationMs = Math.round((performance.now() - started) * 100) / 100;
  const serverFault = status >= 500 || end.cut === true;
  const fields = {
    ...invocation,
    function_name: invocation.function_name ?? NO_FUNCTION_NAME,
    api_request_id: request.requestId,
    method: request.method,
    route: request.route,
    postId: request.pathId,
    status,
    durationMs,
    ...(end.cut ? { responseCut: true } : {}),
    ...requestMetrics({
      status: serverFault ? Math.max(status, 500) : status,
      durationMs,
      coldStart: invocation.cold_start,
      counts: request.scope.counts,
    }),
  };
  if (!serverFault) return logger.info("request", fields);
  // Read only when nothing was thrown: a cut list's body is the whole list.
  const shown = () => (sent.gzipped ? `status ${status}` : textOf(sent.body));
  const error = errorFields(end.failure, shown);
  logger.error(end.cut ? "response cut" : "request failed", { ...fields, error });
}
