// HTTP rules, conditional GET: strong ETags for JSON bodies and If-None-Match (RFC 9110).
import { createHash } from "node:crypto";

/** A strong ETag for a JSON body: a hash of its UTF-8 bytes, so equal bodies share a tag. */
export function etagOf(json: string): string {
  return etagOfParts([json]);
}

/**
 * The ETag of the body these parts make once joined, hashed part by part: a large body is
 * never converted to bytes all at once.
 */
export function etagOfParts(parts: string[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return `"${hash.digest("base64url").slice(0, 32)}"`;
}

/**
 * The tag of the same body sent gzipped. Its bytes differ, so a strong tag must too (as
 * Apache's mod_deflate does it); both name the same JSON, so either one revalidates.
 */
export function gzippedEtag(etag: string): string {
  return `${etag.slice(0, -1)}-gzip"`;
}

/**
 * Whether an If-None-Match header names this body: `*`, or one of its tags under RFC 9110's
 * weak comparison (a `W/` prefix is ignored), in either encoding.
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  const ours = [etag, gzippedEtag(etag)];
  return header
    .split(",")
    .map((tag) => tag.trim().replace(/^W\//, ""))
    .some((tag) => ours.includes(tag));
}
