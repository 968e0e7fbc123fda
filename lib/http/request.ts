// Requests: an API Gateway REST API (Lambda proxy, payload 1.0) event read once, here, into the
// request every later step reads (the route's step, the answer's shaping, the log line), so the
// event's layout is known to this module only.
import type { APIGatewayProxyEvent } from "aws-lambda";
import { TooLargeError, ValidationError } from "../posts/errors.js";
import type { RequestScope } from "../posts/repository.js";

/** Largest request body accepted, in bytes, checked before the body is decoded or parsed. */
export const BODY_MAX_BYTES = 1_048_576;

/** The request as every step after the event sees it. */
export interface ApiRequest {
  /** The HTTP method (`GET`). */
  method: string;
  /** The route the gateway matched, as its method, a space and its resource path. */
  route: string;
  /** API Gateway's id of the request, when the gateway gave one. */
  requestId: string | undefined;
  /** The raw value of the route's path parameter (the one the handler names), if any. */
  pathId: string | undefined;
  /**
   * The path the client asked for, as it reached the gateway (the stage's name first on the
   * default URL, a custom domain's base path first there), without a trailing slash.
   */
  path: string;
  /** A request header by case-insensitive name; a header sent more than once, its values joined. */
  header(name: string): string | undefined;
  /** The body parsed as a JSON object; throws ValidationError (or TooLargeError) when it is not one. */
  jsonObject(): Record<string, unknown>;
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
 * The event's headers by case-insensitive name, each name lower-cased once. A REST event's
 * `headers` keeps only the last of a repeated header; `multiValueHeaders` has them all, joined here
 * as RFC 9110 allows for list-valued fields (Accept-Encoding, If-None-Match), and wins. Of two
 * names differing only in case, the first wins.
 */
export function headerLookup(
  event: Pick<APIGatewayProxyEvent, "headers" | "multiValueHeaders">,
): (name: string) => string | undefined {
  const joined = new Map<string, string>();
  for (const [key, values] of Object.entries(event.multiValueHeaders ?? {})) {
    const name = key.toLowerCase();
    if (values?.length && !joined.has(name)) joined.set(name, values.join(", "));
  }
  const last = new Map<string, string | undefined>();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    const name = key.toLowerCase();
    if (!last.has(name)) last.set(name, value);
  }
  return (name) => {
    const wanted = name.toLowerCase();
    return joined.get(wanted) ?? last.get(wanted);
  };
}

/** The path the client called: the gateway's (with the stage or base path), else the route's. */
function requestPath(event: APIGatewayProxyEvent): string {
  // Stryker disable next-line OptionalChaining: a REST event always has a request context; tests send some without
  const path = event.requestContext?.path ?? event.path ?? "";
  return path.replace(/\/+$/, "");
}

/** What the request is read with: the route's path parameter (if any) and the request's scope. */
export interface RequestOptions {
  pathParameter: string | undefined;
  scope: Required<RequestScope>;
}

/** The request of `event`; the body is decoded only when a step asks for it. */
export function apiRequest(
  event: APIGatewayProxyEvent,
  { pathParameter, scope }: RequestOptions,
): ApiRequest {
  return {
    method: event.httpMethod,
    route: `${event.httpMethod} ${event.resource}`,
    // Stryker disable next-line OptionalChaining: a REST event always has a request context; tests send some without
    requestId: event.requestContext?.requestId,
    // Stryker disable next-line ConditionalExpression: API Gateway sends no parameter named "undefined"
    pathId: pathParameter === undefined ? undefined : event.pathParameters?.[pathParameter],
    path: requestPath(event),
    header: headerLookup(event),
    jsonObject: () => parseJsonObject(event),
    scope,
  };
}
