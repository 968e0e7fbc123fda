// Responses: a route's reply as API Gateway's result: JSON, gzip when the client accepts it
// (remembered for the last tagged body), and the 6 MB guard.
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { gzipSync, constants as zlib } from "node:zlib";
import { gzippedEtag, matchesIfNoneMatch } from "./conditional.js";

/**
 * Largest response Lambda can return (6 MB for the whole invocation result), less room for the
 * status and headers around the body.
 */
export const RESPONSE_MAX_BYTES = 6 * 1024 * 1024 - 16 * 1024;
/** Bodies smaller than this are not worth compressing. */
const GZIP_MIN_BYTES = 1024;

/** What a route returns; the wrapper turns it into the HTTP response. */
export interface Reply {
  statusCode: number;
  body: unknown;
  /** The body already serialized as JSON; sent as is instead of `body`. */
  json?: string;
  headers?: Record<string, string>;
}

/** 200 with a JSON body. */
export const ok = (body: unknown): Reply => ({ statusCode: 200, body });
/** 201 with the created resource and where it lives. */
export const created = (body: unknown, location: string): Reply => ({
  statusCode: 201,
  body,
  headers: { location },
});
/**
 * 200 with a body already serialized and its ETag, or 304 without a body when If-None-Match
 * shows the client holds it. `no-cache`: a cache may keep it but must revalidate every time.
 */
export function okUnlessHeld(json: string, etag: string, ifNoneMatch: string | undefined): Reply {
  const headers = { etag, "cache-control": "no-cache" };
  if (matchesIfNoneMatch(ifNoneMatch, etag)) return { statusCode: 304, body: undefined, headers };
  return { statusCode: 200, body: undefined, json, headers };
}
/** 204 carrying a `detail` (the spec asks for one; HTTP/1.1 clients will not see it). */
export const noContent = (detail: string): Reply => ({ statusCode: 204, body: { detail } });

// nosniff: a browser must never treat a post's text as HTML or script, whatever it contains.
const JSON_HEADERS = { "content-type": "application/json", "x-content-type-options": "nosniff" };
/** Error answers describe one moment (a missing post, a storage fault): no cache may keep them. */
const ERROR_HEADERS = { "cache-control": "no-store" };

/**
 * Whether an Accept-Encoding header allows gzip: named with a non-zero q, or covered by `*`
 * with a non-zero q when gzip is not named at all (an explicit `gzip;q=0` wins over `*`).
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  const weights = new Map<string, number>();
  for (const part of header.split(",")) {
    const [coding, ...params] = part.toLowerCase().split(";") as [string, ...string[]];
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    weights.set(coding.trim(), q === undefined ? 1 : Number(q.slice(2)));
  }
  const weight = weights.get("gzip") ?? weights.get("*") ?? 0;
  return weight > 0;
}

/** Size of a string once it is embedded in Lambda's JSON result (quotes and escapes included). */
function embeddedSize(text: string): number {
  // Escaping at most doubles a character, and UTF-8 takes at most 3 bytes per UTF-16 unit, so a
  // text under a sixth of the limit fits whatever it holds, and is not copied to be measured.
  // Stryker disable next-line ConditionalExpression,EqualityOperator: only skips work; the exact size is below the limit too
  if (text.length < RESPONSE_MAX_BYTES / 6) return text.length;
  return Buffer.byteLength(JSON.stringify(text));
}

/**
 * The last tagged body this instance gzipped. A list answered again from the list cache has the
 * same ETag, so it is sent without compressing it again; the tag is a hash of the JSON, so an
 * equal tag means an equal body.
 */
let lastGzipped: { etag: string; base64: string } | undefined;

/** `body` gzipped, as base64; from the memo when `etag` is the last tagged body's. */
function gzipped(body: string, etag: string | undefined): string {
  // Stryker disable next-line ObjectLiteral: the level trades size for speed; any level is valid gzip
  const zip = () => gzipSync(body, { level: zlib.Z_BEST_SPEED }).toString("base64");
  if (etag === undefined) return zip();
  if (lastGzipped?.etag !== etag) lastGzipped = { etag, base64: zip() };
  return lastGzipped.base64;
}

function tooLarge(size: number, compressed: boolean) {
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

/**
 * The result Lambda returns for a reply, gzipped when `gzip` and the body is worth it.
 * `compress` is for tests: real compression cannot be steered to an exact size.
 */
export function toResponse(
  reply: Reply,
  gzip: boolean,
  compress: (body: string, etag: string | undefined) => string = gzipped,
): APIGatewayProxyStructuredResultV2 & { statusCode: number } {
  if (reply.statusCode === 304) {
    // Not Modified carries no body, only the validators the client already holds.
    return { statusCode: 304, headers: { ...reply.headers, vary: "accept-encoding" } };
  }
  const body = reply.json ?? JSON.stringify(reply.body);
  const headers: Record<string, string> = {
    ...JSON_HEADERS,
    ...(reply.statusCode >= 400 ? ERROR_HEADERS : {}),
    ...reply.headers,
  };
  if (gzip && body.length >= GZIP_MIN_BYTES) {
    const zipped = compress(body, headers.etag);
    if (zipped.length > RESPONSE_MAX_BYTES) return tooLarge(zipped.length, true);
    if (headers.etag) headers.etag = gzippedEtag(headers.etag);
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
