// The list built by a Scan: each post's JSON written, as its Scan page arrives, straight into the
// buffer of the kept list's page it belongs on (lib/storage/list-pages.ts), then each page put in
// id order in place, so the list's bytes are never held twice.
import { POST_DIGEST_BYTES, pageDigest, postDigest } from "../posts/etag.js";
import { type Post, serializePost } from "../posts/post.js";
import { type ListPage, PAGE_IDS, pageOf } from "./list-pages.js";
import type { PostsTable } from "./posts-table.js";

const COMMA = 0x2c;
/**
 * How much of the list a Scan writes between two collections of its garbage, at least: 1 MB, or a
 * tenth of what it has written so far once that is more, so a list of any size costs a few dozen.
 */
export const COLLECT_EVERY_BYTES = 1024 * 1024;
const COLLECT_EVERY_SHARE = 0.1;
/** Room a new page's buffer gets beyond the posts seen so far's average: a page rarely grows. */
const PAGE_ROOM = 1.25;

/** A post as a filling page holds it: where its JSON starts, and its length. */
interface Placed {
  id: number;
  at: number;
  length: number;
}

/** A page as the Scan fills it: its posts' JSON in the order they came, each and a comma. */
interface FillingPage {
  buffer: Buffer;
  used: number;
  posts: Placed[];
}

/**
 * The pages of one Scan, filled as its pages arrive. Each page's buffer is allocated once, with
 * room for a whole page of posts of the average size so far, outside the JavaScript heap; the
 * memory a page never writes is never touched, so it takes address space, not resident memory.
 */
export class PageFiller {
  private readonly pages = new Map<number, FillingPage>();
  private posts = 0;
  private bytes = 0;

  /** Bytes of JSON written so far, commas included. */
  get written(): number {
    return this.bytes;
  }

  /** Writes a post's JSON into its page. */
  add(post: Post): void {
    const text = JSON.stringify(serializePost(post));
    const length = Buffer.byteLength(text);
    this.posts += 1;
    this.bytes += length + 1;
    const page = this.room(pageOf(post.id), length + 1);
    page.buffer.write(text, page.used);
    page.buffer[page.used + length] = COMMA;
    page.posts.push({ id: post.id, at: page.used, length });
    page.used += length + 1;
  }

  /** The page `key` with room for `bytes` more: opened, or moved to a buffer twice as large. */
  private room(key: number, bytes: number): FillingPage {
    const page = this.pages.get(key);
    if (page && page.used + bytes <= page.buffer.length) return page;
    const room = Math.ceil((this.bytes / this.posts) * PAGE_IDS * PAGE_ROOM);
    const size = Math.max(bytes + (page?.used ?? 0), page ? 2 * page.buffer.length : room);
    const buffer = Buffer.allocUnsafeSlow(size);
    page?.buffer.copy(buffer, 0, 0, page.used);
    const grown = { buffer, used: page?.used ?? 0, posts: page?.posts ?? [] };
    this.pages.set(key, grown);
    return grown;
  }

  /** Every page, ascending, its posts put in id order in place through one scratch buffer. */
  finish(): ListPage[] {
    const keys = [...this.pages.keys()].sort((a, b) => a - b);
    const largest = Math.max(0, ...[...this.pages.values()].map((page) => page.used));
    const scratch = Buffer.allocUnsafeSlow(largest);
    return keys.map((key) => inOrder(key, this.pages.get(key) as FillingPage, scratch));
  }
}

/** A filled page as a kept one: its posts' JSON rewritten in id order, commas between. */
function inOrder(key: number, page: FillingPage, scratch: Buffer): ListPage {
  page.buffer.copy(scratch, 0, 0, page.used);
  const posts = page.posts.sort((a, b) => a.id - b.id);
  const ids = new Float64Array(posts.length);
  const ends = new Uint32Array(posts.length);
  const digests = Buffer.allocUnsafeSlow(posts.length * POST_DIGEST_BYTES);
  let at = 0;
  for (const [i, { id, at: from, length }] of posts.entries()) {
    scratch.copy(page.buffer, at, from, from + length + 1);
    digests.set(postDigest(page.buffer.subarray(at, at + length)), i * POST_DIGEST_BYTES);
    at += length;
    [ids[i], ends[i]] = [id, at];
    at += 1;
  }
  // The last post's comma is left out.
  const chunk = page.buffer.subarray(0, at - 1);
  return { key, ids, ends, chunk, digests, digest: pageDigest(digests) };
}

/** A full collection of V8's garbage: `now`, or `soon`, as a task run once the thread is idle. */
export type Collect = (when: "now" | "soon") => void;

/** V8's collector, when the process exposes it (`--expose-gc`, in the list function's options). */
export function exposedCollector(): Collect | undefined {
  const { gc } = globalThis as { gc?: unknown };
  if (typeof gc !== "function") return undefined;
  const run = gc as (options: { type: "major"; execution: "sync" | "async" }) => unknown;
  return (when) => void run({ type: "major", execution: when === "now" ? "sync" : "async" });
}

/**
 * The whole list's pages, from a Scan read page by page: each Scan page's posts are written into
 * the list's pages as the page arrives, so neither the raw items of the whole table nor one string
 * of the whole list is ever held, nor a second copy of the posts' bytes. The bytes live outside
 * the JavaScript heap. `collect` (V8's collector, when exposed) runs before the Scan, so that a
 * list just dropped or an abandoned Scan's pages are freed before this one takes their place; then
 * soon after every COLLECT_EVERY_BYTES (while the next page is awaited) and at the end, so that
 * the SDK's pages of items do not pile up (docs/performance.md, The list at any size).
 */
export async function scanPages(
  table: PostsTable,
  signal?: AbortSignal,
  collect = exposedCollector(),
): Promise<ListPage[]> {
  const filler = new PageFiller();
  collect?.("now");
  let collectedAt = 0;
  await table.scanPages((page: Post[]) => {
    for (const post of page) filler.add(post);
    const since = filler.written - collectedAt;
    if (since >= Math.max(COLLECT_EVERY_BYTES, collectedAt * COLLECT_EVERY_SHARE)) {
      collect?.("soon");
      collectedAt = filler.written;
    }
  }, signal);
  collect?.("now");
  return filler.finish();
}
