// The request pipeline every route goes through, one request at a time: the event read once into
// the request (request.ts) with its scope (deadline, storage counts), the route's step under the
// deadline, errors mapped to answers, the answer's bytes (compressed by the handler's own memo)
// with its CORS headers, then a writer sends it (buffered, or streamed by stream.ts) and the log
// line says what was sent. Every step after the first reads the request, never the event; each
// is a function of its own, so one more step (a check that may answer before the route's step,
// under the same deadline) is one more function called from `pipeline` below.
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { StorageError } from "../posts/errors.js";
import { type Compress, acceptsGzip, gzipMemo } from "./compress.js";
import { corsHeaders, withCors } from "./cors.js";
import { errorReply } from "./errors.js";
import { type RequestRecord, logRequest } from "./log-line.js";
import { type InvocationContext, type Logger, invocationFields } from "./logger.js";
import { type ApiRequest, apiRequest } from "./request.js";
import { type Outgoing, type Reply, errorOutgoing, outgoing } from "./response.js";
import { type SpendGuard, pausedReply } from "./spending.js";

/** What a route does with a request. */
export type BusinessStep = (request: ApiRequest) => Promise<Reply>;
/** What Lambda hands a function besides the event; absent in tests. */
export type LambdaContext = Pick<Context, "getRemainingTimeInMillis"> & InvocationContext;

/** How a route is wrapped. */
export interface RouteOptions {
  /** The route's path parameter that names the resource (`{post_pk}`), shown to the step as `pathId`. */
  pathParameter?: string;
  /** The origins whose browser apps may read the answers (CORS_ORIGINS); none by default. */
  corsOrigins?: readonly string[];
  /** The handler's compressor; by default a memo of its own (compress.ts). */
  compress?: Compress;
  /** The stage's spending limit: a pause answers before the route's step; each answer counts. */
  spend?: SpendGuard;
}

/** The last step: sends the answer, after `prepare` had the last word on it. */
export interface Writer<R> {
  prepare?(response: Outgoing): Outgoing;
  write(sent: Outgoing): Promise<R>;
}

/** Time left for a request when there is no Lambda context (tests): the functions' timeout. */
const DEFAULT_TIME_LEFT_MS = 10_000;
/** Kept back from the function's timeout to answer before Lambda cuts the request off. */
const ANSWER_MARGIN_MS = 1_000;

/** A request in the pipeline: what the log line reports, and the deadline its scope obeys. */
interface RequestContext extends RequestRecord {
  request: ApiRequest;
  deadline: AbortController;
  timeLeftMs: number;
}

function openContext(
  event: APIGatewayProxyEvent,
  context: LambdaContext | undefined,
  coldStart: boolean,
  pathParameter: string | undefined,
): RequestContext {
  const started = performance.now();
  const deadline = new AbortController();
  // The request's one scope: storage gets it as the request's `scope`, the log line its counts.
  const scope = { signal: deadline.signal, counts: {} };
  return {
    request: apiRequest(event, { pathParameter, scope }),
    started,
    invocation: invocationFields(context, coldStart),
    deadline,
    timeLeftMs: context?.getRemainingTimeInMillis() ?? DEFAULT_TIME_LEFT_MS,
  };
}

/**
 * The step's reply, or the answer to what it threw. It gives up in time to answer before the
 * function's timeout: the client gets `DB ERROR: TimeoutError` rather than the gateway's bare
 * 5xx, and the deadline is aborted so the storage call in flight is cancelled instead of landing
 * after that answer.
 */
async function replyWithin(step: BusinessStep, ctx: RequestContext) {
  const ms = Math.max(ctx.timeLeftMs - ANSWER_MARGIN_MS, 0);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new StorageError(`TimeoutError: storage did not answer within ${ms} ms`);
      ctx.deadline.abort(error);
      reject(error);
    }, ms);
  });
  try {
    return { reply: await Promise.race([step(ctx.request), late]) };
  } catch (failure) {
    return { reply: errorReply(failure), failure };
  } finally {
    clearTimeout(timer);
  }
}

/** How a route's answers are shaped: its CORS origins and its compressor. */
type Shaping = Required<Pick<RouteOptions, "corsOrigins" | "compress">>;

/** The reply as bytes to send, compressed when the client takes gzip, with CORS headers. */
async function render(reply: Reply, request: ApiRequest, { corsOrigins, compress }: Shaping) {
  let response: Outgoing;
  let failure: unknown;
  try {
    response = await outgoing(reply, acceptsGzip(request.header("accept-encoding")), compress);
  } catch (error) {
    failure = error;
    response = errorOutgoing(500, "Internal server error");
  }
  withCors(response.headers, corsHeaders(corsOrigins, request.header("origin")));
  return { response, failure };
}

/**
 * The route's reply, or a paused stage's 503 before the route does anything, so a paused stage
 * writes nothing.
 */
async function replyUnlessPaused(step: BusinessStep, ctx: RequestContext, spend?: SpendGuard) {
  const pause = await spend?.pause();
  return pause ? { reply: pausedReply(pause), failure: undefined } : replyWithin(step, ctx);
}

/** Tells the spending limit what the request used, once it is answered (or cut). */
function countSpending(spend: SpendGuard | undefined, ctx: RequestContext, sent: Outgoing) {
  const { counts } = ctx.request.scope;
  return spend?.served({
    bytesOut: sent.bytes,
    readUnits: counts.ReadUnits ?? 0,
    writeUnits: counts.WriteUnits ?? 0,
    durationMs: performance.now() - ctx.started,
  });
}

/** A route's step as a pipeline that ends in the writer it is given for each request. */
export function pipeline(step: BusinessStep, logger: Logger, options: RouteOptions = {}) {
  const shaping: Shaping = {
    corsOrigins: options.corsOrigins ?? [],
    compress: options.compress ?? gzipMemo(),
  };
  // The first invocation of an instance is its cold start.
  let coldStart = true;
  return async <R>(
    event: APIGatewayProxyEvent,
    context: LambdaContext | undefined,
    writer: Writer<R>,
  ) => {
    const ctx = openContext(event, context, coldStart, options.pathParameter);
    coldStart = false;
    const replied = await replyUnlessPaused(step, ctx, options.spend);
    const rendered = await render(replied.reply, ctx.request, shaping);
    const sent = writer.prepare?.(rendered.response) ?? rendered.response;
    try {
      const result = await writer.write(sent);
      logRequest(logger, ctx, sent, { failure: replied.failure ?? rendered.failure });
      await countSpending(options.spend, ctx, sent);
      return result;
    } catch (cut) {
      logRequest(logger, ctx, sent, { failure: cut, cut: true });
      await countSpending(options.spend, ctx, sent);
      throw cut;
    }
  };
}
