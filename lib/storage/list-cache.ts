// The list cache: the whole list's JSON kept per instance and answered again while
// the change marker has not moved, so an unchanged table costs one small read, not a Scan.
import { etagOfParts } from "../posts/etag.js";
import { type Post, serializePost } from "../posts/post.js";
import { type ListBody, type StorageCounts, addCount } from "../posts/repository.js";
import type { ChangeMarker } from "./change-marker.js";
import type { PostsTable } from "./posts-table.js";

/**
 * How long a kept list may be answered without a Scan. Bounds the one case the marker misses:
 * a write whose item landed but whose marker advance failed (that write answered 500).
 */
export const LIST_CACHE_MAX_AGE_MS = 60_000;

/** The separators between the posts' JSON, shared by every list. */
const OPEN = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");

/**
 * Every post as the pieces of one JSON array, its size and its ETag, built page by page: each
 * page's posts become UTF-8 bytes in one buffer of their own as the page arrives, so neither the
 * raw items of the whole table nor one string of the whole list is ever held. The bytes live
 * outside the JavaScript heap, whose collector would otherwise let it grow to several times the
 * list before collecting a Scan's garbage (docs/performance.md, The list at any size).
 */
export async function scanJson(table: PostsTable, signal?: AbortSignal): Promise<ListBody> {
  const entries: { id: number; json: Uint8Array }[] = [];
  let bytes = 0;
  await table.scanPages((page: Post[]) => {
    const texts = page.map((post) => JSON.stringify(serializePost(post)));
    const slab = Buffer.allocUnsafeSlow(
      texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0),
    );
    let at = 0;
    for (const [i, post] of page.entries()) {
      const length = slab.write(texts[i] as string, at);
      entries.push({ id: post.id, json: slab.subarray(at, at + length) });
      at += length;
    }
    // One separator or bracket per post.
    bytes += at + page.length;
  }, signal);
  entries.sort((a, b) => a.id - b.id);
  const parts: Uint8Array[] = [OPEN];
  for (const [i, entry] of entries.entries()) {
    if (i > 0) parts.push(COMMA);
    parts.push(entry.json);
  }
  parts.push(CLOSE);
  // The closing bracket, or the empty list's two.
  bytes += entries.length === 0 ? 2 : 1;
  return { json: parts, bytes, etag: etagOfParts(parts) };
}

/** The list of one instance, answered from memory while the marker stays where it was built. */
export class ListCache {
  private kept: { marker: string; body: ListBody; builtAt: number } | undefined;

  constructor(
    private readonly table: PostsTable,
    private readonly marker: ChangeMarker,
    private readonly maxAgeMs = LIST_CACHE_MAX_AGE_MS,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * The list now. One consistent marker read; the kept body when it was built at that marker,
   * else a Scan, kept only if the marker read after it shows that nothing moved meanwhile.
   */
  async read(signal?: AbortSignal, counts?: StorageCounts): Promise<ListBody> {
    const before = await this.marker.read(signal);
    const kept = this.kept;
    if (kept?.marker === before && this.clock() - kept.builtAt < this.maxAgeMs) {
      addCount(counts, "ListFromMemory");
      return kept.body;
    }
    addCount(counts, "ListScanned");
    // Markers only grow: a body built at another marker can never be answered again.
    this.kept = undefined;
    const builtAt = this.clock();
    const body = await scanJson(this.table, signal);
    const after = await this.marker.read(signal);
    if (after === before) this.kept = { marker: before, body, builtAt };
    return body;
  }
}
