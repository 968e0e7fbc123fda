// The buffered end of the request pipeline (pipeline.ts): a route's step as an API Gateway (REST
// API, Lambda proxy, payload 1.0) handler that returns its whole answer at once. Every route but
// the list answers this way; stream.ts sends the list through Lambda's response stream.
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from "aws-lambda";
import type { Logger } from "./logger.js";
import { type BusinessStep, type LambdaContext, type RouteOptions, pipeline } from "./pipeline.js";
import { type Outgoing, textOf } from "./response.js";

export type { BusinessStep, LambdaContext, RouteOptions } from "./pipeline.js";
export type ApiHandler = (
  event: APIGatewayProxyEvent,
  context?: LambdaContext,
) => Promise<APIGatewayProxyResult>;

/** The result a buffered Lambda returns for an answer: text as is, gzip as base64. */
export function bufferedResult(response: Outgoing): APIGatewayProxyResult {
  const { statusCode, headers, body, gzipped } = response;
  if (!gzipped) return { statusCode, headers, body: textOf(body) };
  const bytes = Buffer.concat(body as readonly Uint8Array[]);
  return { statusCode, headers, body: bytes.toString("base64"), isBase64Encoded: true };
}

/** The writer of a buffered answer. */
const buffered = { write: async (sent: Outgoing) => bufferedResult(sent) };

/** Wraps a business step as a buffered API Gateway handler. */
export function httpHandler(
  step: BusinessStep,
  logger: Logger,
  options?: RouteOptions,
): ApiHandler {
  const run = pipeline(step, logger, options);
  return (event, context) => run(event, context, buffered);
}
