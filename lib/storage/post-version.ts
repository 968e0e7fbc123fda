// The per-post sequence: a `version` attribute on every post item that each write of the post
// raises, so whoever reads the table's stream can order a post's changes and drop a stale one.

/** The stored attribute that holds a post's version (never part of the API's answers). */
export const VERSION_ATTRIBUTE = "version";

/**
 * How far versions are spread per millisecond of the clock. A post starts at its creation time
 * in milliseconds times this, and each later write adds 1, so an id reused after a delete starts
 * above every version the deleted post reached unless it took more than this many writes per
 * millisecond of its life (one item takes about a thousand writes a second).
 */
export const VERSIONS_PER_MS = 1_000;

/**
 * The version a new post is stored with. Grows with the clock rather than starting at 1, since
 * no trace of a deleted post is kept to continue from. Stays a safe integer until the year 2255.
 */
export function firstVersion(nowMs: number = Date.now()): number {
  return nowMs * VERSIONS_PER_MS;
}

/** A stored item as the post it holds: the version is the stream's business, not the API's. */
export function withoutVersion<T extends Record<string, unknown>>(item: T): Omit<T, "version"> {
  const { [VERSION_ATTRIBUTE]: _version, ...post } = item;
  return post;
}
