// Streamed answers: the list sent through Lambda's response stream (API Gateway's STREAM
// transfer mode), metadata first, then the body in chunks, so it is never one string or one
// buffered result. Only this file knows the runtime's `awslambda` global.
import { once } from "node:events";
import type { Writable } from "node:stream";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { type ApiHandler, httpHandler } from "./handler.js";
import type { Logger } from "./logger.js";
import { type BusinessStep, type LambdaContext, type RouteOptions, pipeline } from "./pipeline.js";
import { type Outgoing, batches, errorOutgoing } from "./response.js";

/** The part of the Lambda Node runtime's `awslambda` global a streamed answer uses. */
export interface LambdaStreaming {
  streamifyResponse(
    handler: (
      event: APIGatewayProxyEvent,
      stream: Writable,
      context: LambdaContext,
    ) => Promise<void>,
  ): unknown;
  HttpResponseStream: {
    from(
      stream: Writable,
      prelude: { statusCode: number; headers: Record<string, string> },
    ): Writable;
  };
}

/**
 * The most a streamed answer may carry: Lambda's 200 MB streamed response limit, less room for
 * the metadata prelude that goes first.
 */
export const STREAM_MAX_BYTES = 200 * 1024 * 1024 - 64 * 1024;

/**
 * The runtime's streaming interface when this process can stream. serverless-offline defines
 * `awslambda` too, but calls every handler as a buffered one (with a context, not a stream); it
 * sets IS_OFFLINE=true, which Lambda never does, so there the answer is buffered instead.
 */
export function streamingRuntime(
  // Defined by the Lambda Node runtime before it loads the handler, and by serverless-offline.
  lambda = (globalThis as { awslambda?: LambdaStreaming }).awslambda,
  env: NodeJS.ProcessEnv = process.env,
): LambdaStreaming | undefined {
  if (env.IS_OFFLINE === "true" || typeof lambda?.streamifyResponse !== "function")
    return undefined;
  return lambda;
}

/** The answer itself, or a 500 saying so when it is larger than a stream may carry. */
export function withinStreamLimit(response: Outgoing, limit = STREAM_MAX_BYTES): Outgoing {
  if (response.bytes <= limit) return response;
  const hint = response.gzipped
    ? "even compressed"
    : "send Accept-Encoding: gzip to receive it compressed";
  return errorOutgoing(
    500,
    `Response too large: ${response.bytes} bytes exceed Lambda's 200 MB streamed response limit (${hint})`,
  );
}

/**
 * Writes an answer to the response stream: the prelude (status and headers) with the first
 * write, then the body chunk by chunk, each after the stream has taken the last, and the end. A
 * failure on the way is thrown, never swallowed: the runtime then ends the stream with an error,
 * and since the closing `]` is the list's last byte, no JSON parser takes what came as a list.
 */
export async function writeStreamed(
  lambda: Pick<LambdaStreaming, "HttpResponseStream">,
  stream: Writable,
  { statusCode, headers, body, gzipped }: Outgoing,
): Promise<void> {
  const out = lambda.HttpResponseStream.from(stream, { statusCode, headers });
  // A failure between two writes is reported again by end's callback, below; this listener only
  // keeps an error event with no listener from ending the whole process.
  // Stryker disable next-line StringLiteral,BlockStatement: a failure while waiting is caught by the wait
  out.on("error", () => {});
  // The prelude goes out with the first write: an empty one sends it now, a 304's included.
  out.write("");
  for (const batch of gzipped ? body.map((chunk) => [chunk]) : batches(body)) {
    // Stryker disable next-line ConditionalExpression: only saves writes into a stream already failed
    if (out.destroyed) break;
    // Corked, a batch's pieces leave in one write to the socket, without being copied together.
    out.cork();
    for (const piece of batch) out.write(piece);
    out.uncork();
    // A destroyed stream never needs a drain; a failure while waiting rejects the wait.
    if (out.writableNeedDrain) await once(out, "drain");
  }
  await new Promise<void>((resolve, reject) => {
    out.end((error?: Error | null) => (error ? reject(error) : resolve()));
  });
}

/**
 * Wraps a business step as a streamed handler where the runtime streams, and as a buffered one
 * elsewhere (serverless-offline, tests): the same status, headers and bytes either way.
 */
export function streamedHandler(
  step: BusinessStep,
  logger: Logger,
  options?: RouteOptions,
  lambda = streamingRuntime(),
): ApiHandler {
  if (!lambda) return httpHandler(step, logger, options);
  const run = pipeline(step, logger, options);
  // The runtime calls what streamifyResponse returns with a stream; nothing else calls it.
  return lambda.streamifyResponse((event, stream, context) =>
    run(event, context, {
      prepare: withinStreamLimit,
      write: (sent) => writeStreamed(lambda, stream, sent),
    }),
  ) as ApiHandler;
}
