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
