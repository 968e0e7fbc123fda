// Compression: gzip for a client that accepts it, one body's pieces at a time, never the whole
// text joined; and the memo a handler keeps of its last tagged body.
import { once } from "node:events";
import { createGzip, constants as zlib } from "node:zlib";

/** The size of each piece of body handed on: large enough to keep writes few, small to keep memory flat. */
export const CHUNK_BYTES = 64 * 1024;

/** A piece of a body: text, or UTF-8 bytes. */
export type Piece = string | Uint8Array;

/** Compresses a body, given its ETag when it has one. */
export type Compress = (pieces: readonly Piece[], etag: string | undefined) => Promise<Buffer[]>;

/** A piece as bytes: text encoded as UTF-8, bytes as they are. */
export const toBytes = (piece: Piece): Uint8Array =>
  // Stryker disable next-line ConditionalExpression: copying bytes would only cost time
  typeof piece === "string" ? Buffer.from(piece) : piece;

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

/** The body's pieces gzipped, as the compressor's own chunks: the whole text is never joined. */
export async function gzipPieces(pieces: Iterable<Piece>): Promise<Buffer[]> {
  const out: Buffer[] = [];
  // Stryker disable next-line ObjectLiteral: the level trades size for speed; any level is valid gzip
  const gzip = createGzip({ level: zlib.Z_BEST_SPEED });
  gzip.on("data", (chunk: Buffer) => out.push(chunk));
  const ended = once(gzip, "end");
  // Resolves once the compressor has consumed `chunk`, so its memory may be written again.
  const write = (chunk: Uint8Array) =>
    new Promise<void>((resolve, reject) =>
      gzip.write(chunk, (error) => (error ? reject(error) : resolve())),
    );
  // The pieces are copied into one scratch buffer and handed over a batch at a time: one write
  // per post would cost a round trip each, and a new buffer per batch a copy of the whole body.
  const scratch = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  for (const piece of pieces) {
    const bytes = toBytes(piece);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: only how often it writes
    if (used + bytes.length > scratch.length) {
      // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty write adds nothing
      if (used > 0) await write(scratch.subarray(0, used));
      used = 0;
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator: only how often it writes
    if (bytes.length > scratch.length) {
      await write(bytes);
    } else {
      scratch.set(bytes, used);
      used += bytes.length;
    }
  }
  // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty write adds nothing
  if (used > 0) await write(scratch.subarray(0, used));
  gzip.end();
  await ended;
  return out;
}

/**
 * A compressor that remembers the last tagged body it gzipped, one per handler instance. A list
 * answered again from the list cache has the same ETag, so it is sent without compressing it
 * again; the tag is a hash of the JSON, so an equal tag means an equal body.
 */
export function gzipMemo(): Compress {
  let last: { etag: string; chunks: Promise<Buffer[]> } | undefined;
  return (pieces, etag) => {
    if (etag === undefined) return gzipPieces(pieces);
    if (last?.etag !== etag) {
      const chunks = gzipPieces(pieces);
      last = { etag, chunks };
      // A failed compression is not remembered: the next request tries again.
      chunks.catch(() => {
        if (last?.chunks === chunks) last = undefined;
      });
    }
    return last.chunks;
  };
}
