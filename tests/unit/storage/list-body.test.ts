// Unit: a Scan's list built page by page, and when V8's collector gets the SDK pages' garbage:
// at once before the Scan and at its end, soon after every megabyte or tenth of the list so far.
import { afterEach, describe, expect, it } from "vitest";
import { type Post, serializePost } from "../../../lib/posts/post.js";
import {
  COLLECT_EVERY_BYTES,
  type Collect,
  exposedCollector,
  scanPages,
} from "../../../lib/storage/list-body.js";
import { listBody } from "../../../lib/storage/list-pages.js";
import type { PostsTable } from "../../../lib/storage/posts-table.js";

const AT = "2025-01-02T03:04:05.000Z";
/** A post whose JSON, with the comma after it, is exactly `bytes` long. */
function postOf(id: number, bytes: number): Post {
  const bare = { id, title: "t", content: "", created_at: AT, updated_at: AT } as Post;
  const overhead = JSON.stringify(serializePost(bare)).length + 1;
  return { ...bare, content: "x".repeat(bytes - overhead) };
}

/** A table whose Scan hands over these pages in turn, noting each in `events`. */
function scannedTable(pages: Post[][], events: string[]): PostsTable {
  const scan = async (take: (posts: Post[]) => void) => {
    for (const [i, page] of pages.entries()) {
      await Promise.resolve();
      events.push(`page ${i + 1}`);
      take(page);
    }
  };
  return { scanPages: scan } as unknown as PostsTable;
}

/** `count` Scan pages of one post of `bytes` each, ids descending as a Scan's hash order may be. */
const pagesOf = (count: number, bytes: number) =>
  Array.from({ length: count }, (_, i) => [postOf(count - i, bytes)]);

/** A collector that notes each call in `events`: "now" or "soon". */
function noting(events: string[]): Collect {
  return (when) => events.push(when);
}

describe("a Scan's garbage, collected as it goes", () => {
  it("is collected before the first page, once a megabyte is written, and at the end", async () => {
    const events: string[] = [];
    const table = scannedTable(pagesOf(5, COLLECT_EVERY_BYTES / 2), events);
    await scanPages(table, undefined, noting(events));
    expect(events.join()).toBe("now,page 1,page 2,soon,page 3,page 4,soon,page 5,now");
  });

  it("waits for a tenth of the list so far once that is more than a megabyte", async () => {
    const events: string[] = [];
    // 15 pages of 1 MB: every page until 11 MB are written, then every other page.
    const table = scannedTable(pagesOf(15, COLLECT_EVERY_BYTES), events);
    await scanPages(table, undefined, noting(events));
    const after = events.flatMap((event, i) => (event === "soon" ? [events[i - 1]] : []));
    expect(after).toEqual([
      ...Array.from({ length: 11 }, (_, i) => `page ${i + 1}`),
      "page 13",
      "page 15",
    ]);
    expect(events.slice(-2)).toEqual(["soon", "now"]);
  });

  it("builds the same list with or without a collector", async () => {
    const posts = [3, 1, 200, 2].map((id) => postOf(id, 300));
    const build = async (collect?: Collect) =>
      listBody(
        await scanPages(scannedTable([posts.slice(0, 2), posts.slice(2)], []), undefined, collect),
      );
    const [collected, plain] = [await build(() => {}), await build(undefined)];
    const sorted = [...posts].sort((a, b) => a.id - b.id);
    expect(Buffer.concat(collected.json).toString()).toBe(
      JSON.stringify(sorted.map(serializePost)),
    );
    expect(Buffer.concat(plain.json)).toEqual(Buffer.concat(collected.json));
    expect(plain.etag).toBe(collected.etag);
  });
});

describe("the collector", () => {
  const saved = (globalThis as { gc?: unknown }).gc;
  afterEach(() => {
    (globalThis as { gc?: unknown }).gc = saved;
  });

  it("is V8's full collection when the process exposes it, and none when it does not", () => {
    const calls: unknown[] = [];
    (globalThis as { gc?: unknown }).gc = (options: unknown) => calls.push(options);
    const collect = exposedCollector();
    collect?.("now");
    collect?.("soon");
    expect(calls).toEqual([
      { type: "major", execution: "sync" },
      { type: "major", execution: "async" },
    ]);
    (globalThis as { gc?: unknown }).gc = undefined;
    expect(exposedCollector()).toBeUndefined();
  });
});
