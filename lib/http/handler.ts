// The wrapper that turns a route's step into an API Gateway (REST API, Lambda proxy, payload
// 1.0) handler: the request, the answer's deadline, error mapping, one log line. It answers
// buffered; stream.ts sends the same answer through Lambda's response stream.
import type { Context, APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import { StorageError } from "../posts/errors.js";
import { errorReply } from "./errors.js";
import { type ApiRequest, apiRequest, findHeader } from "./request.js";
import {
  type Outgoing,
  type Reply,
  acceptsGzip,
  errorOutgoing,
  outgoing,
  textOf,
} from "./response.js";
import { type InvocationContext, type Logger, invocationFields } from "./logger.js";
import { requestMetrics } from "./metrics.js";
import { corsHeaders } from "./cors.js";
import type { StorageCounts } from "../posts/repository.js";

type BusinessStep = (request: ApiRequest) => Promise<Reply>;
/** What Lambda hands a function besides the event; absent in tests. */
export type LambdaContext = Pick<Context, "getRemainingTimeInMillis"> & InvocationContext;
export type ApiHandler = (
  event: APIGatewayProxyEvent,
  context?: LambdaContext,
) => Promise<APIGatewayProxyResult>;

/** How a route is wrapped. */
export interface RouteOptions {
  /** The route's path parameter that names the resource (`{post_pk}`), shown to the step as `pathId`. */
  pathParameter?: string;
  /** The origins whose browser apps may read the answers (CORS_ORIGINS); none by default. */
  corsOrigins?: readonly string[];
}

/** One request answered up to its bytes: what to send, and how to log it once it is sent. */
export interface Answer {
  response: Outgoing;
  /**
   * Writes the request's one log line for `sent` (the answer, or what replaced it), with
   * `cut` when the answer failed after its first byte.
   */
  logSent(sent: Outgoing, cut?: unknown): void;
}

/** The function's name in a line when there is no Lambda context (tests): a metric dimension needs one. */
const NO_FUNCTION_NAME = "unknown";

/** Time left for a request when there is no Lambda context (tests): the functions' timeout. */
const DEFAULT_TIME_LEFT_MS = 10_000;
/** Kept back from the function's timeout to answer before Lambda cuts the request off. */
const ANSWER_MARGIN_MS = 1_000;

/**
 * Runs a step, but gives up in time to answer before the function's timeout: the client gets
 * `DB ERROR: TimeoutError` rather than the gateway's bare 5xx, and `deadline` is aborted so the
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

/** The log line's error member: the cause a wrapped error carries, else the error itself. */
function errorFields(failure: unknown, fallback: () => string) {
  const err = failure instanceof Error ? failure : new Error(fallback());
  const cause = err.cause instanceof Error ? err.cause : err;
  return { name: cause.name, message: cause.message, stack: cause.stack };
}

/**
 * A business step as a function from event to answer: body parsing, deadline, error mapping,
 * headers and gzip. The answer's log line is written by whoever sends it, once it is sent.
 */
export function answering(
  step: BusinessStep,
  logger: Logger,
  { pathParameter, corsOrigins = [] }: RouteOptions = {},
): (event: APIGatewayProxyEvent, context?: LambdaContext) => Promise<Answer> {
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
    let response: Outgoing;
    try {
      response = await outgoing(reply, acceptsGzip(findHeader(event, "accept-encoding")));
    } catch (error) {
      failure = error;
      response = errorOutgoing(500, "Internal server error");
    }
    withCors(response, corsHeaders(corsOrigins, findHeader(event, "origin")));
    const logSent = (sent: Outgoing, cut?: unknown) => {
      const status = sent.statusCode;
      const durationMs = Math.round((performance.now() - started) * 100) / 100;
      const serverFault = status >= 500 || cut !== undefined;
      const fields = {
        ...invocation,
        function_name: invocation.function_name ?? NO_FUNCTION_NAME,
        api_request_id: event.requestContext?.requestId,
        method: event.httpMethod,
        route: `${event.httpMethod} ${event.resource}`,
        postId: pathId,
        status,
        durationMs,
        ...(cut === undefined ? {} : { responseCut: true }),
        ...requestMetrics({
          status: serverFault ? Math.max(status, 500) : status,
          durationMs,
          coldStart: invocation.cold_start,
          counts,
        }),
      };
      if (serverFault) {
        // Read only when nothing was thrown: a cut list's body is the whole list.
        const shown = () => (sent.gzipped ? `status ${status}` : textOf(sent.body));
        const error = errorFields(cut ?? failure, shown);
        logger.error(cut === undefined ? "request failed" : "response cut", { ...fields, error });
      } else {
        logger.info("request", fields);
      }
    };
    return { response, logSent };
  };
}

/** Adds CORS headers to an answer's, one Vary naming everything the answer varies by. */
function withCors(response: Outgoing, cors: Record<string, string>): void {
  const { vary, ...rest } = cors;
  Object.assign(response.headers, rest);
  if (vary !== undefined) {
    const current = response.headers.vary;
    response.headers.vary = current === undefined ? vary : `${current}, ${vary}`;
  }
}

/** The result a buffered Lambda returns for an answer: text as is, gzip as base64. */
export function bufferedResult(response: Outgoing): APIGatewayProxyResult {
  const { statusCode, headers, body, gzipped } = response;
  if (!gzipped) return { statusCode, headers, body: textOf(body) };
  const bytes = Buffer.concat(body as readonly Uint8Array[]);
  return { statusCode, headers, body: bytes.toString("base64"), isBase64Encoded: true };
}

/** Wraps a business step as a buffered API Gateway handler (every route but the list). */
export function httpHandler(
  step: BusinessStep,
  logger: Logger,
  options?: RouteOptions,
): ApiHandler {
  const answer = answering(step, logger, options);
  return async (event, context) => {
    const { response, logSent } = await answer(event, context);
    const result = bufferedResult(response);
    logSent(response);
    return result;
  };
}
