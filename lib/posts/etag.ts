// Entity tags: a short strong hash that names a JSON body, so equal bodies share a tag.
import { createHash } from "node:crypto";

/** A strong ETag for a JSON body: a hash of its UTF-8 bytes. */
export function etagOf(json: string): string {
  return etagOfParts([json]);
}

/**
 * The ETag of the body these parts make once joined, hashed part by part: a large body is
 * never converted to bytes all at once.
 */
export function etagOfParts(parts: readonly (string | Uint8Array)[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return `"${hash.digest("base64url").slice(0, 32)}"`;
}

/** Bytes of a post's digest in a list's ETag: 128 bits, collision-free in practice. */
export const POST_DIGEST_BYTES = 16;

/** One post's digest, from its JSON's UTF-8 bytes, for etagOfPostDigests. */
export function postDigest(json: Uint8Array): Buffer {
  return createHash("sha256").update(json).digest().subarray(0, POST_DIGEST_BYTES);
}

/**
 * A list's strong ETag from its posts' digests in order: it names the body just as a hash of the
 * whole body does (the body is the posts in order), but after k changed posts it hashes k posts
 * and 16 bytes per post, not the whole list again.
 */
export function etagOfPostDigests(digests: readonly Uint8Array[]): string {
  const joined = Buffer.allocUnsafe(digests.length * POST_DIGEST_BYTES);
  for (const [i, digest] of digests.entries()) joined.set(digest, i * POST_DIGEST_BYTES);
  const hash = createHash("sha256").update("posts:").update(joined);
  return `"${hash.digest("base64url").slice(0, 32)}"`;
}
