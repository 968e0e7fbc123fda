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
 * A page's digest from its posts' digests, 16 bytes each, joined in order (16 bytes, like a
 * post's): a list is hashed page by page, so that after k changed posts only the pages holding
 * them are hashed again.
 */
export function pageDigest(postDigests: Uint8Array): Buffer {
  const hash = createHash("sha256").update("page:").update(postDigests);
  return hash.digest().subarray(0, POST_DIGEST_BYTES);
}

/**
 * A list's strong ETag from its pages' digests in order. Which page a post is on depends only on
 * its id, so the tag names the posts just as a hash of the whole body does (the body is the posts
 * in order): two instances holding the same posts answer the same tag, and after k changed posts
 * it hashes those pages and 16 bytes per page, not the whole list again.
 */
export function etagOfPageDigests(pageDigests: readonly Uint8Array[]): string {
  const hash = createHash("sha256").update("pages:");
  for (const digest of pageDigests) hash.update(digest);
  return `"${hash.digest("base64url").slice(0, 32)}"`;
}
