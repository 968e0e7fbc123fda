// Responses: a route's reply as it goes out (status, headers and the body's bytes, gzipped by
// compress.ts when the client accepts it), buffered or streamed alike.
import { CHUNK_BYTES, type Compress, type Piece, gzipPieces, toBytes } from "./compress.js";
import { gzippedEtag, matchesIfNoneMatch } from "./conditional.js";

/** Bodies smaller than this are not worth compressing. */
const GZIP_MIN_BYTES = 1024;

/** What a route returns; the wrapper turns it into the HTTP response. */
export interface Reply {
  statusCode: number;
  body: unknown;
  /** The body already serialized as JSON, in pieces whose concatenation is the JSON; sent instead of `body`. */
  json?: readonly Piece[];
  /** The UTF-8 size of `json`, when the route knows it. */
  jsonBytes?: number;
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
 * 200 with a body already serialized (in pieces) and its ETag, or 304 without a body when
 * If-None-Match shows the client holds it. `no-cache`: a cache may keep it but must revalidate.
 */
export function okUnlessHeld(
  json: readonly Piece[],
  etag: string,
  ifNoneMatch: string | undefined,
  jsonBytes?: number,
): Reply {
  const headers = { etag, "cache-control": "no-cache" };
  if (matchesIfNoneMatch(ifNoneMatch, etag)) return { statusCode: 304, body: undefined, headers };
  return { statusCode: 200, body: undefined, json, jsonBytes, headers };
}
/** 204 carrying a `detail` (the spec asks for one; HTTP/1.1 clients will not see it). */
export const noContent = (detail: string): Reply => ({ statusCode: 204, body: { detail } });

// nosniff: a browser must never treat a post's text as HTML or script, whatever it contains.
const JSON_HEADERS = { "content-type": "application/json", "x-content-type-options": "nosniff" };
/** Error answers describe one moment (a missing post, a storage fault): no cache may keep them. */
const ERROR_HEADERS = { "cache-control": "no-store" };

/** The size of a piece in bytes. */
const sizeOfPiece = (piece: Piece): number => Buffer.byteLength(piece);

/**
 * Pieces grouped into batches of about CHUNK_BYTES, each written at once: large writes without
 * copying the pieces into larger buffers, and never the whole body at once.
 */
export function* batches(pieces: Iterable<Piece>, size = CHUNK_BYTES): Generator<Piece[]> {
  let batch: Piece[] = [];
  let length = 0;
  for (const piece of pieces) {
    batch.push(piece);
    length += sizeOfPiece(piece);
    if (length >= size) {
      yield batch;
      batch = [];
      length = 0;
    }
  }
  if (batch.length > 0) yield batch;
}

/** The text of a whole body, for an answer that is buffered anyway. */
export function textOf(pieces: readonly Piece[]): string {
  return Buffer.concat(pieces.map(toBytes)).toString("utf8");
}

/** A reply ready to go out: its status, its headers and its body's bytes, in order. */
export interface Outgoing {
  statusCode: number;
  headers: Record<string, string>;
  /** The body: its pieces (JSON), or gzip's chunks when `gzipped`; empty for 304. */
  body: readonly Piece[];
  gzipped: boolean;
  /** The body's size in bytes as sent. */
  bytes: number;
}

/** UTF-8 size of the pieces; `known` when the route measured them already. */
function sizeOf(pieces: readonly Piece[], known: number | undefined): number {
  if (known !== undefined) return known;
  let bytes = 0;
  for (const piece of pieces) bytes += sizeOfPiece(piece);
  return bytes;
}

/**
 * The answer to send for a reply, gzipped by `compress` when `gzip` and the body is worth it: a
 * handler's own memo (compress.ts), or in tests a stand-in, since real compression cannot be
 * steered to an exact size.
 */
export async function outgoing(
  reply: Reply,
  gzip: boolean,
  compress: Compress = gzipPieces,
): Promise<Outgoing> {
  if (reply.statusCode === 304) {
    // Not Modified carries no body, only the validators the client already holds.
    const headers = { ...reply.headers, vary: "accept-encoding" };
    return { statusCode: 304, headers, body: [], gzipped: false, bytes: 0 };
  }
  const pieces = reply.json ?? [JSON.stringify(reply.body)];
  const bytes = sizeOf(pieces, reply.jsonBytes);
  const headers: Record<string, string> = {
    ...JSON_HEADERS,
    ...(reply.statusCode >= 400 ? ERROR_HEADERS : {}),
    ...reply.headers,
  };
  // A 204's `detail` stays in the function's result (the spec), but no body reaches the client,
  // so no header describes one.
  if (reply.statusCode === 204) delete headers["content-type"];
  if (!gzip || bytes < GZIP_MIN_BYTES) {
    return { statusCode: reply.statusCode, headers, body: pieces, gzipped: false, bytes };
  }
  const chunks = await compress(pieces, headers.etag);
  if (headers.etag) headers.etag = gzippedEtag(headers.etag);
  return {
    statusCode: reply.statusCode,
    headers: { ...headers, "content-encoding": "gzip", vary: "accept-encoding" },
    body: chunks,
    gzipped: true,
    bytes: chunks.reduce((sum, chunk) => sum + chunk.length, 0),
  };
}

/** An error answer, ready to go out: for what is found wrong after the reply was made. */
export function errorOutgoing(statusCode: number, detail: string): Outgoing {
  const body = [JSON.stringify({ detail })];
  const headers = { ...JSON_HEADERS, ...ERROR_HEADERS };
  return { statusCode, headers, body, gzipped: false, bytes: Buffer.byteLength(body[0] ?? "") };
}
