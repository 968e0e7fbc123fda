// The list as one instance keeps it: each post's JSON bytes in ascending id order, built once by a
// Scan and then patched post by post, and the answer's pieces, size and ETag made from them.
import { etagOfPostDigests, postDigest } from "../posts/etag.js";
import { type Post, serializePost } from "../posts/post.js";
import type { ListBody } from "../posts/repository.js";
import type { PostsTable } from "./posts-table.js";

/** One post of a kept list: its id, its JSON as UTF-8 bytes, and their digest for the ETag. */
export interface ListEntry {
  id: number;
  json: Uint8Array;
  digest: Uint8Array;
}

/** The separators between the posts' JSON, shared by every list. */
const OPEN = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");

/**
 * Every post's entry, ascending by id, built page by page: each page's posts become UTF-8 bytes in
 * one buffer of their own as the page arrives, so neither the raw items of the whole table nor one
 * string of the whole list is ever held. The bytes live outside the JavaScript heap, whose
 * collector would otherwise let it grow to several times the list before collecting a Scan's
 * garbage (docs/performance.md, The list at any size).
 */
export async function scanEntries(table: PostsTable, signal?: AbortSignal): Promise<ListEntry[]> {
  const entries: ListEntry[] = [];
  await table.scanPages((page: Post[]) => {
    const texts = page.map((post) => JSON.stringify(serializePost(post)));
    const slab = Buffer.allocUnsafeSlow(
      texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0),
    );
    let at = 0;
    for (const [i, post] of page.entries()) {
      const length = slab.write(texts[i] as string, at);
      const json = slab.subarray(at, at + length);
      entries.push({ id: post.id, json, digest: postDigest(json) });
      at += length;
    }
  }, signal);
  return entries.sort((a, b) => a.id - b.id);
}

/**
 * The entries with `changed` applied: each id's post put in its place, or taken out where it has
 * none (deleted). One merge of the two sorted sequences; unchanged entries are shared, not copied.
 */
export function patchEntries(
  entries: readonly ListEntry[],
  changed: ReadonlyMap<number, Post | undefined>,
): ListEntry[] {
  const ids = [...changed.keys()].sort((a, b) => a - b);
  const patched: ListEntry[] = [];
  let at = 0;
  for (const id of ids) {
    while (at < entries.length && (entries[at] as ListEntry).id < id) patched.push(entries[at++]!);
    if (at < entries.length && (entries[at] as ListEntry).id === id) at++;
    const post = changed.get(id);
    if (post) {
      const json = Buffer.from(JSON.stringify(serializePost(post)));
      patched.push({ id, json, digest: postDigest(json) });
    }
  }
  while (at < entries.length) patched.push(entries[at++]!);
  return patched;
}

/**
 * The answer for these entries: the JSON array's pieces, its size in bytes and its ETag, made of
 * the posts' digests so that a patched list is not hashed whole again.
 */
export function listBody(entries: readonly ListEntry[]): ListBody {
  const parts: Uint8Array[] = [OPEN];
  // The brackets, and one comma between each two posts.
  let bytes = 2 + Math.max(entries.length - 1, 0);
  for (const [i, entry] of entries.entries()) {
    if (i > 0) parts.push(COMMA);
    parts.push(entry.json);
    bytes += entry.json.length;
  }
  parts.push(CLOSE);
  return { json: parts, bytes, etag: etagOfPostDigests(entries.map((entry) => entry.digest)) };
}
