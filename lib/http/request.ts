// Requests: what a route's step may read of an API Gateway REST API (Lambda proxy, payload 1.0)
// event.
import type { APIGatewayProxyEvent } from "aws-lambda";
import { TooLargeError, ValidationError } from "../posts/errors.js";
import type { RequestScope } from "../posts/repository.js";

/** Largest request body accepted, in bytes, checked before the body is decoded or parsed. */
export const BODY_MAX_BYTES = 1_048_576;

/** The request as a business step sees it. */
export interface ApiRequest {
  /** The raw value of the route's path parameter (the one the handler names), if any. */
  pathId: string | undefined;
  /** The body parsed as a JSON object; throws ValidationError (or TooLargeError) when it is not one. */
  jsonObject(): Record<string, unknown>;
  /** A request header by case-insensitive name; a header sent more than once, its values joined. */
  header(name: string): string | undefined;
  /**
   * The path the client asked for, as it reached the gateway (the stage's name first on the
   * default URL, a custom domain's base path first there), without a trailing slash.
   */
  path: string;
  /**
   * What storage is bound to for this request (routes.ts, once): the deadline's signal, which
   * stops its calls, and the counts its log line's metrics report (metrics.ts).
   */
  scope: Required<RequestScope>;
}

function decodeBody(event: APIGatewayProxyEvent): string {
  // API Gateway always sends a string; serverless-offline hands over JSON scalars it parsed.
  const body: unknown = event.body;
  const raw =
    typeof body === "string"
      ? body
      : body === undefined || body === null
        ? ""
        : JSON.stringify(body);
  // A base64 body's decoded size follows from its length and padding: refused before decoding.
  const size = event.isBase64Encoded ? Buffer.byteLength(raw, "base64") : Buffer.byteLength(raw);
  if (size > BODY_MAX_BYTES) {
    throw new TooLargeError(`Request body must be at most ${BODY_MAX_BYTES} bytes`);
  }
  if (!event.isBase64Encoded) return raw;
  try {
    // The mark is kept here and removed once, below, as for a text body.
    const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    return decoder.decode(Buffer.from(raw, "base64"));
  } catch {
    throw new ValidationError("Request body is not valid UTF-8");
  }
}

function parseJsonObject(event: APIGatewayProxyEvent): Record<string, unknown> {
  // A leading byte-order mark is ignored, as JSON allows, whether the body came as text or base64.
  const text = decodeBody(event).replace(/^\uFEFF/, "");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ValidationError(
      text.trim() === "" ? "Request body is required" : "Request body is not valid JSON",
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ValidationError("Request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

/**
 * A header of the event by case-insensitive name. A REST event's `headers` keeps only the last
 * of a repeated header; `multiValueHeaders` has them all, joined here as RFC 9110 allows for
 * list-valued fields (Accept-Encoding, If-None-Match).
 */
export function findHeader(
  event: Pick<APIGatewayProxyEvent, "headers" | "multiValueHeaders">,
  name: string,
): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, values] of Object.entries(event.multiValueHeaders ?? {})) {
    if (key.toLowerCase() === wanted && values?.length) return values.join(", ");
  }
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}

/** The path the client called: the gateway's (with the stage or base path), else the route's. */
function requestPath(event: APIGatewayProxyEvent): string {
  // Stryker disable next-line OptionalChaining: a REST event always has a request context; tests send some without
  const path = event.requestContext?.path ?? event.path ?? "";
  return path.replace(/\/+$/, "");
}

/** The request a step sees of `event`; the body is decoded only when the step asks for it. */
export function apiRequest(
  event: APIGatewayProxyEvent,
  pathId: string | undefined,
  scope: Required<RequestScope>,
): ApiRequest {
  return {
    pathId,
    jsonObject: () => parseJsonObject(event),
    header: (name) => findHeader(event, name),
    path: requestPath(event),
    scope,
  };
}
