// Conditional GET (RFC 9110): If-None-Match against a body's ETag, in either encoding.

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
