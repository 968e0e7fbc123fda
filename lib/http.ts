// HTTP adapter: turns a business step into an API Gateway (HTTP API, payload 2.0) handler.
import type {
  Context,
  APIGatewayProxyEventV2,
  APIGatewayProxyResultV2,
  APIGatewayProxyStructuredResultV2,
} from "aws-lambda";
import { gzipSync, constants as zlib } from "node:zlib";
import { BadRequestError, HttpError, PayloadTooLargeError, StorageError } from "./errors.js";
import { IdempotencyError, type IdempotencyRefusal } from "./idempotent-create.js";
import type { Logger } from "./logger.js";

/** Largest request body accepted, in bytes, checked before the body is decoded or parsed. */
export const BODY_MAX_BYTES = 1_048_576;

/**
 * Largest response Lambda can return (6 MB for the whole invocation result), less room for the
 * status and headers around the body.
 */
export const RESPONSE_MAX_BYTES = 6 * 1024 * 1024 - 16 * 1024;
/** Bodies smaller than this are not worth compressing. */
const GZIP_MIN_BYTES = 1024;

/** What a business step returns; the wrapper turns it into the HTTP response. */
export interface Reply {
  statusCode: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** The request as a business step sees it. */
export interface ApiRequest {
  /** The raw `post_pk` path parameter, if the route has one. */
  postId: string | undefined;
  /** The body parsed as a JSON object; throws a 4xx HttpError when it is not one. */
  jsonObject(): Record<string, unknown>;
  /** A request header by case-insensitive name. */
  header(name: string): string | undefined;
}

export type BusinessStep = (request: ApiRequest) => Promise<Reply>;
export type ApiHandler = (
  event: APIGatewayProxyEventV2,
  context?: Pick<Context, "getRemainingTimeInMillis">,
) => Promise<APIGatewayProxyResultV2>;

/** Time left for a request when there is no Lambda context (tests): the functions' timeout. */
const DEFAULT_TIME_LEFT_MS = 10_000;
/** Kept back from the function's timeout to answer before Lambda cuts the request off. */
const ANSWER_MARGIN_MS = 1_000;

/** 200 with a JSON body. */
export const ok = (body: unknown): Reply => ({ statusCode: 200, body });
/** 201 with the created resource and where it lives. */
export const created = (body: unknown, location: string): Reply => ({
  statusCode: 201,
  body,
  headers: { location },
});
/** 204 carrying a `detail` (the spec asks for one; HTTP/1.1 clients will not see it). */
export const noContent = (detail: string): Reply => ({ statusCode: 204, body: { detail } });

// nosniff: a browser must never treat a post's text as HTML or script, whatever it contains.
const JSON_HEADERS = { "content-type": "application/json", "x-content-type-options": "nosniff" };
/** Error answers describe one moment (a missing post, a storage fault): no cache may keep them. */
const ERROR_HEADERS = { "cache-control": "no-store" };

function decodeBody(event: APIGatewayProxyEventV2): string {
  // API Gateway always sends a string; serverless-offline hands over JSON scalars it parsed.
  const body: unknown = event.body;
  const raw =
    typeof body === "string"
      ? body
      : body === undefined || body === null
        ? ""
        : JSON.stringify(body);
  // Base64 carries 3 bytes per 4 characters; refuse before decoding anything large.
  const size = event.isBase64Encoded ? Math.floor((raw.length * 3) / 4) : raw.length;
  if (
    size > BODY_MAX_BYTES ||
    (!event.isBase64Encoded && Buffer.byteLength(raw) > BODY_MAX_BYTES)
  ) {
    throw new PayloadTooLargeError(`Request body must be at most ${BODY_MAX_BYTES} bytes`);
  }
  if (!event.isBase64Encoded) return raw;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(raw, "base64"));
  } catch {
    throw new BadRequestError("Request body is not valid UTF-8");
  }
}

function parseJsonObject(event: APIGatewayProxyEventV2): Record<string, unknown> {
  // A leading byte-order mark is ignored, as JSON allows, whether the body came as text or base64.
  const text = decodeBody(event).replace(/^\uFEFF/, "");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadRequestError(
      text.trim() === "" ? "Request body is required" : "Request body is not valid JSON",
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new BadRequestError("Request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

function findHeader(headers: APIGatewayProxyEventV2["headers"], name: string) {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}

/**
 * Whether an Accept-Encoding header allows gzip: named with a non-zero q, or covered by `*`
 * with a non-zero q when gzip is not named at all (an explicit `gzip;q=0` wins over `*`).
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  const weights = new Map<string, number>();
  for (const part of header.split(",")) {
    const [coding = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    weights.set(coding.trim(), q === undefined ? 1 : Number(q.slice(2)));
  }
  const weight = weights.get("gzip") ?? weights.get("*") ?? 0;
  return weight > 0;
}

/** Size of a string once it is embedded in Lambda's JSON result (quotes and escapes included). */
function embeddedSize(text: string): number {
  if (text.length < RESPONSE_MAX_BYTES / 6) return text.length;
  // `text` is JSON already: embedding it again adds two quotes and escapes each `"` and `\`.
  let size = Buffer.byteLength(text) + 2;
  for (let i = 0; i < text.length; i++) if (text[i] === '"' || text[i] === "\\") size++;
  return size;
}

function tooLarge(size: number, compressed: boolean): APIGatewayProxyStructuredResultV2 {
  const hint = compressed
    ? "even compressed"
    : "send Accept-Encoding: gzip to receive it compressed";
  return {
    statusCode: 500,
    headers: { ...JSON_HEADERS, ...ERROR_HEADERS },
    body: JSON.stringify({
      detail: `Response too large: ${size} bytes exceed the 6 MB Lambda response limit (${hint})`,
    }),
  };
}

function toResponse(reply: Reply, gzip: boolean): APIGatewayProxyStructuredResultV2 {
  const body = JSON.stringify(reply.body);
  const headers = {
    ...JSON_HEADERS,
    ...(reply.statusCode >= 400 ? ERROR_HEADERS : {}),
    ...reply.headers,
  };
  if (gzip && body.length >= GZIP_MIN_BYTES) {
    const zipped = gzipSync(body, { level: zlib.Z_BEST_SPEED }).toString("base64");
    if (zipped.length > RESPONSE_MAX_BYTES) return tooLarge(zipped.length, true);
    return {
      statusCode: reply.statusCode,
      headers: { ...headers, "content-encoding": "gzip", vary: "accept-encoding" },
      body: zipped,
      isBase64Encoded: true,
    };
  }
  const size = embeddedSize(body);
  if (size > RESPONSE_MAX_BYTES) return tooLarge(size, false);
  return { statusCode: reply.statusCode, headers, body };
}

/** The status of each way a create with an Idempotency-Key can be refused. */
const IDEMPOTENCY_STATUS: Record<IdempotencyRefusal, number> = {
  disabled: 400,
  reused: 422,
  "in-progress": 409,
};

function errorReply(error: unknown): Reply {
  if (error instanceof HttpError)
    return { statusCode: error.statusCode, body: { detail: error.message } };
  if (error instanceof IdempotencyError) {
    return { statusCode: IDEMPOTENCY_STATUS[error.refusal], body: { detail: error.message } };
  }
  return { statusCode: 500, body: { detail: "Internal server error" } };
}

/**
 * Runs a step, but gives up in time to answer before the function's timeout: a client then gets
 * `DB ERROR: TimeoutError` rather than the gateway's bare 503. Storage is the only slow part.
 */
async function withinTime(run: Promise<Reply>, ms: number): Promise<Reply> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StorageError(`TimeoutError: storage did not answer within ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([run, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Wraps a business step: body parsing, error-to-response mapping, headers, one log line. */
export function httpHandler(step: BusinessStep, logger: Logger): ApiHandler {
  return async (event, context) => {
    const started = performance.now();
    const postId = event.pathParameters?.post_pk;
    const timeLeft = context?.getRemainingTimeInMillis() ?? DEFAULT_TIME_LEFT_MS;
    let reply: Reply;
    let failure: unknown;
    try {
      const request: ApiRequest = {
        postId,
        jsonObject: () => parseJsonObject(event),
        header: (name) => findHeader(event.headers, name),
      };
      reply = await withinTime(step(request), Math.max(timeLeft - ANSWER_MARGIN_MS, 0));
    } catch (error) {
      failure = error;
      reply = errorReply(error);
    }
    const response = toResponse(reply, acceptsGzip(findHeader(event.headers, "accept-encoding")));
    const fields = {
      requestId: event.requestContext?.requestId,
      method: event.requestContext?.http?.method,
      route: event.routeKey,
      postId,
      status: response.statusCode,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    };
    if (response.statusCode !== undefined && response.statusCode >= 500) {
      const err = failure instanceof Error ? failure : new Error(response.body);
      const cause = err.cause instanceof Error ? err.cause : err;
      logger.error("request failed", {
        ...fields,
        errorName: cause.name,
        errorMessage: cause.message,
        stack: cause.stack,
      });
    } else {
      logger.info("request", fields);
    }
    return response;
  };
}
