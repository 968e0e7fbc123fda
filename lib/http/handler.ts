// The wrapper that turns a route's step into an API Gateway (HTTP API, payload 2.0) handler:
// the request, the answer's deadline, error mapping, one log line.
import type { Context, APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from "aws-lambda";
import { StorageError } from "../posts/errors.js";
import { errorReply } from "./errors.js";
import { type ApiRequest, apiRequest, findHeader } from "./request.js";
import { type Reply, acceptsGzip, toResponse } from "./response.js";
import { type InvocationContext, type Logger, invocationFields } from "./logger.js";
import { requestMetrics } from "./metrics.js";
import type { StorageCounts } from "../posts/repository.js";

type BusinessStep = (request: ApiRequest) => Promise<Reply>;
export type ApiHandler = (
  event: APIGatewayProxyEventV2,
  context?: Pick<Context, "getRemainingTimeInMillis"> & InvocationContext,
) => Promise<APIGatewayProxyResultV2>;

/** How a route is wrapped. */
interface RouteOptions {
  /** The route's path parameter that names the resource (`{post_pk}`), shown to the step as `pathId`. */
  pathParameter?: string;
}

/** The function's name in a line when there is no Lambda context (tests): a metric dimension needs one. */
const NO_FUNCTION_NAME = "unknown";

/** Time left for a request when there is no Lambda context (tests): the functions' timeout. */
const DEFAULT_TIME_LEFT_MS = 10_000;
/** Kept back from the function's timeout to answer before Lambda cuts the request off. */
const ANSWER_MARGIN_MS = 1_000;

/**
 * Runs a step, but gives up in time to answer before the function's timeout: the client gets
 * `DB ERROR: TimeoutError` rather than the gateway's bare 503, and `deadline` is aborted so the
 * storage call in flight is cancelled instead of landing after that answer.
 */
async function withinTime(
  step: BusinessStep,
  request: ApiRequest,
  ms: number,
  deadline: AbortController,
) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new StorageError(`TimeoutError: storage did not answer within ${ms} ms`);
      deadline.abort(error);
      reject(error);
    }, ms);
  });
  try {
    return await Promise.race([step(request), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Wraps a business step: body parsing, deadline, error-to-response mapping, headers, one log line. */
export function httpHandler(
  step: BusinessStep,
  logger: Logger,
  { pathParameter }: RouteOptions = {},
): ApiHandler {
  // The first invocation of an instance is its cold start.
  let coldStart = true;
  return async (event, context) => {
    const started = performance.now();
    const invocation = invocationFields(context, coldStart);
    coldStart = false;
    // Stryker disable next-line ConditionalExpression: API Gateway sends no parameter named "undefined"
    const pathId = pathParameter === undefined ? undefined : event.pathParameters?.[pathParameter];
    const timeLeft = context?.getRemainingTimeInMillis() ?? DEFAULT_TIME_LEFT_MS;
    const deadline = new AbortController();
    const counts: StorageCounts = {};
    let reply: Reply;
    let failure: unknown;
    try {
      const request = apiRequest(event, pathId, deadline.signal, counts);
      reply = await withinTime(step, request, Math.max(timeLeft - ANSWER_MARGIN_MS, 0), deadline);
    } catch (error) {
      failure = error;
      reply = errorReply(error);
    }
    const response = toResponse(reply, acceptsGzip(findHeader(event.headers, "accept-encoding")));
    const status = response.statusCode;
    const durationMs = Math.round((performance.now() - started) * 100) / 100;
    const fields = {
      ...invocation,
      function_name: invocation.function_name ?? NO_FUNCTION_NAME,
      api_request_id: event.requestContext?.requestId,
      method: event.requestContext?.http?.method,
      route: event.routeKey,
      postId: pathId,
      status,
      durationMs,
      ...requestMetrics({ status, durationMs, coldStart: invocation.cold_start, counts }),
    };
    if (status >= 500) {
      const err = failure instanceof Error ? failure : new Error(response.body);
      const cause = err.cause instanceof Error ? err.cause : err;
      logger.error("request failed", {
        ...fields,
        error: { name: cause.name, message: cause.message, stack: cause.stack },
      });
    } else {
      logger.info("request", fields);
    }
    return response;
  };
}
