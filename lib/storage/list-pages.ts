// The list as one instance keeps it: pages of posts by id range, each page's posts' JSON joined in
// one chunk with its digest, so that a list after k writes builds again only the pages holding
// them, and its answer is the pages' chunks and its ETag a hash of the pages' digests.
import { POST_DIGEST_BYTES, etagOfPageDigests, pageDigest, postDigest } from "../posts/etag.js";
import { type Post, serializePost } from "../posts/post.js";
import type { ListBody } from "../posts/repository.js";

/**
 * Ids per page: post n is on page ⌊n / 128⌋. Ids from the counter are dense, so a page holds up
 * to 128 posts (about 128 KB of the bench's posts, two of the stream's 64 KB batches); a table of
 * 10,000 posts is 79 pages, of 100,000 posts 782.
 */
export const PAGE_IDS = 128;

/** The page a post's id is on: a function of the id alone, so every instance pages alike. */
export const pageOf = (id: number) => Math.floor(id / PAGE_IDS);

/** One post as a patch handles it: its id, its JSON as UTF-8 bytes, and their digest. */
export interface ListEntry {
  id: number;
  json: Uint8Array;
  digest: Uint8Array;
}

/**
 * One page: its posts' ids ascending, their JSON joined by commas in one chunk and where each
 * ends in it, their digests (16 bytes each, in order) and the page's. Typed arrays, not an object
 * per post: a view per post would cost more than a kilobyte each of the instance's memory.
 */
export interface ListPage {
  key: number;
  ids: Float64Array;
  ends: Uint32Array;
  chunk: Uint8Array;
  digests: Uint8Array;
  digest: Uint8Array;
}

/** The separators between the pages' chunks, shared by every list. */
const OPEN = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");

/** A post's entry: its JSON's bytes and their digest. */
export function entryOf(post: Post): ListEntry {
  const json = Buffer.from(JSON.stringify(serializePost(post)));
  return { id: post.id, json, digest: postDigest(json) };
}

/** A page's posts as entries: views into its chunk and its digests. */
export function entriesOf(page: ListPage): ListEntry[] {
  const entries: ListEntry[] = [];
  let start = 0;
  for (const [i, id] of page.ids.entries()) {
    const end = page.ends[i] as number;
    const digest = page.digests.subarray(i * POST_DIGEST_BYTES, (i + 1) * POST_DIGEST_BYTES);
    entries.push({ id, json: page.chunk.subarray(start, end), digest });
    start = end + COMMA.length;
  }
  return entries;
}

/**
 * The page of these entries (ascending, all of one page, at least one): their JSON copied into one
 * chunk, commas between, and their digests into one buffer, outside the JavaScript heap.
 */
export function makePage(entries: readonly ListEntry[]): ListPage {
  const bytes = entries.reduce((sum, entry) => sum + entry.json.length, entries.length - 1);
  const chunk = Buffer.allocUnsafeSlow(bytes);
  const digests = Buffer.allocUnsafeSlow(entries.length * POST_DIGEST_BYTES);
  const ids = new Float64Array(entries.length);
  const ends = new Uint32Array(entries.length);
  let at = 0;
  for (const [i, { id, json, digest }] of entries.entries()) {
    if (i > 0) at += COMMA.copy(chunk, at);
    chunk.set(json, at);
    at += json.length;
    [ids[i], ends[i]] = [id, at];
    digests.set(digest, i * POST_DIGEST_BYTES);
  }
  const key = pageOf((entries[0] as ListEntry).id);
  return { key, ids, ends, chunk, digests, digest: pageDigest(digests) };
}

/** The pages of these entries, ascending by id. */
export function pagesOf(entries: readonly ListEntry[]): ListPage[] {
  const pages: ListPage[] = [];
  let start = 0;
  for (let end = 1; end <= entries.length; end++) {
    const next = entries[end];
    if (next && pageOf(next.id) === pageOf((entries[start] as ListEntry).id)) continue;
    pages.push(makePage(entries.slice(start, end)));
    start = end;
  }
  return pages;
}

/**
 * The entries with `changed` applied: each id's post put in its place, or taken out where it has
 * none (deleted). One merge of the two sorted sequences.
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
    if (post) patched.push(entryOf(post));
  }
  while (at < entries.length) patched.push(entries[at++]!);
  return patched;
}

/** The changed posts grouped by page, the pages ascending. */
function byPage(changed: ReadonlyMap<number, Post | undefined>) {
  const pages = new Map<number, Map<number, Post | undefined>>();
  for (const [id, post] of changed) {
    const key = pageOf(id);
    pages.set(key, (pages.get(key) ?? new Map()).set(id, post));
  }
  return [...pages].sort(([a], [b]) => a - b);
}

/**
 * The pages with `changed` applied: only the pages holding a changed id are built again (a page
 * left empty is dropped); every other page is shared, chunk and digest included.
 */
export function patchPages(
  pages: readonly ListPage[],
  changed: ReadonlyMap<number, Post | undefined>,
): ListPage[] {
  const patched: ListPage[] = [];
  let at = 0;
  for (const [key, posts] of byPage(changed)) {
    while (at < pages.length && (pages[at] as ListPage).key < key) patched.push(pages[at++]!);
    const old = at < pages.length && (pages[at] as ListPage).key === key ? pages[at++] : undefined;
    const entries = patchEntries(old ? entriesOf(old) : [], posts);
    if (entries.length > 0) patched.push(makePage(entries));
  }
  while (at < pages.length) patched.push(pages[at++]!);
  return patched;
}

/**
 * The answer for these pages: the JSON array's pieces (the brackets, the pages' chunks and a comma
 * between each two), its size in bytes and its ETag, made of the pages' digests.
 */
export function listBody(pages: readonly ListPage[]): ListBody {
  const parts: Uint8Array[] = [OPEN];
  // The brackets, and one comma between each two pages.
  let bytes = 2 + Math.max(pages.length - 1, 0);
  for (const [i, page] of pages.entries()) {
    if (i > 0) parts.push(COMMA);
    parts.push(page.chunk);
    bytes += page.chunk.length;
  }
  parts.push(CLOSE);
  return { json: parts, bytes, etag: etagOfPageDigests(pages.map((page) => page.digest)) };
}
