// Unit: the kept list's pages: paged by id, patched page by page, answered as the same bytes and
// ETag a list built from scratch would be.
import { describe, expect, it } from "vitest";
import { pageDigest, postDigest } from "../../../lib/posts/etag.js";
import { type Post, serializePost } from "../../../lib/posts/post.js";
import {
  PAGE_IDS,
  entriesOf,
  entryOf,
  listBody,
  makePage,
  pageOf,
  pagesOf,
  patchEntries,
  patchPages,
} from "../../../lib/storage/list-pages.js";
import { PageFiller } from "../../../lib/storage/list-body.js";

const AT = "2025-01-02T03:04:05.000Z";
const post = (id: number, title = `Post ${id}`): Post =>
  ({ id, title, content: `ĉontent ${id}`, created_at: AT, updated_at: AT }) as Post;
const entries = (ids: number[]) => ids.map((id) => entryOf(post(id)));
const text = (parts: readonly Uint8Array[]) => Buffer.concat(parts).toString("utf8");
/** The JSON a list of these posts is, built the plain way. */
const expected = (posts: Post[]) => JSON.stringify(posts.map(serializePost));
/** Changed posts by id; an id without a post was deleted. */
const changes = (...changed: [number, Post?][]) => new Map(changed.map(([id, p]) => [id, p]));

describe("pages by id", () => {
  it("puts ids 0..127 on page 0 and 128 on page 1", () => {
    expect(PAGE_IDS).toBe(128);
    expect([1, 127, 128, 255, 256].map((id) => pageOf(id))).toEqual([0, 0, 1, 1, 2]);
  });

  it("makes a post's entry of its JSON's bytes and their digest", () => {
    const entry = entryOf(post(3));
    const json = JSON.stringify(serializePost(post(3)));
    expect(entry.id).toBe(3);
    expect(Buffer.from(entry.json).toString("utf8")).toBe(json);
    expect(entry.digest).toEqual(postDigest(Buffer.from(json)));
  });

  it("joins a page's posts with commas in one chunk, and their digests in order", () => {
    const made = entries([1, 2, 5]);
    const page = makePage(made);
    const posts = [1, 2, 5].map((id) => post(id));
    expect(Buffer.from(page.chunk).toString("utf8")).toBe(expected(posts).slice(1, -1));
    expect(page.key).toBe(0);
    expect([...page.ids]).toEqual([1, 2, 5]);
    const lengths = made.map((entry) => entry.json.length);
    expect([...page.ends]).toEqual([lengths[0], lengths[0]! + 1 + lengths[1]!, page.chunk.length]);
    expect(Buffer.from(page.digests)).toEqual(Buffer.concat(made.map((entry) => entry.digest)));
    expect(page.digest).toEqual(pageDigest(Buffer.concat(made.map((entry) => entry.digest))));
  });

  it("gives a page's posts back as the entries it was made of", () => {
    const made = entries([128, 129, 200]);
    const back = entriesOf(makePage(made));
    expect(back.map((entry) => entry.id)).toEqual([128, 129, 200]);
    expect(back.map((entry) => Buffer.from(entry.json))).toEqual(made.map((e) => e.json));
    expect(back.map((entry) => Buffer.from(entry.digest))).toEqual(made.map((e) => e.digest));
  });

  it("splits ascending entries where the page changes, one page per range", () => {
    const pages = pagesOf(entries([1, 127, 128, 300, 301]));
    expect(pages.map((page) => page.key)).toEqual([0, 1, 2]);
    expect(pages.map((page) => [...page.ids])).toEqual([[1, 127], [128], [300, 301]]);
    expect(pagesOf([])).toEqual([]);
  });
});

describe("the answer of pages", () => {
  it("is the JSON array of every post, its size and a tag of the pages' digests", () => {
    const posts = [1, 2, 200, 900].map((id) => post(id));
    const body = listBody(pagesOf(posts.map(entryOf)));
    expect(text(body.json)).toBe(expected(posts));
    expect(body.bytes).toBe(Buffer.byteLength(expected(posts)));
    expect(body.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect([text(listBody([]).json), listBody([]).bytes]).toEqual(["[]", 2]);
    expect(listBody(pagesOf(entries([1, 2, 300]))).etag).not.toBe(
      listBody(pagesOf(entries([1, 2, 301]))).etag,
    );
  });
});

describe("patching pages", () => {
  const ids = [1, 2, 3, 130, 131, 400];
  const base = pagesOf(entries(ids));
  const fresh = (posts: Post[]) => listBody(pagesOf(posts.map(entryOf)));

  it("puts in place, replaces and takes out, across pages, as a fresh build would", () => {
    const changed = changes(
      [0, post(0)],
      [3],
      [131, post(131, "retitled")],
      [260, post(260)],
      [400],
      [1000, post(1000)],
      [999],
    );
    const after = [post(0), post(1), post(2), post(130), post(131, "retitled"), post(260)];
    const body = listBody(patchPages(base, changed));
    const expectedBody = fresh([...after, post(1000)]);
    expect(text(body.json)).toBe(text(expectedBody.json));
    expect(body.bytes).toBe(expectedBody.bytes);
    expect(body.etag).toBe(expectedBody.etag);
  });

  it("rebuilds only the pages holding a changed id, sharing the others, dropping an empty one", () => {
    const patched = patchPages(base, changes([2, post(2, "new")]));
    expect(patched.map((page, i) => page === base[i])).toEqual([false, true, true]);
    const dropped = patchPages(base, changes([400]));
    expect(dropped.map((page) => page.key)).toEqual([0, 1]);
    expect(dropped.map((page, i) => page === base[i])).toEqual([true, true]);
    expect(patchPages(base, new Map())).toEqual(base);
  });

  it("merges a page's entries with changed ids before, between and after them", () => {
    const page = entries([2, 4]);
    const merged = patchEntries(page, changes([1, post(1)], [3, post(3)], [4], [5, post(5)]));
    expect(merged.map((entry) => entry.id)).toEqual([1, 2, 3, 5]);
    expect(merged[1]).toBe(page[0]);
    expect(patchEntries([], changes([7]))).toEqual([]);
  });
});

describe("a Scan's pages, filled as its pages arrive", () => {
  it("are the pages a sorted build makes, whatever order the posts came in; none for none", () => {
    const ids = [300, 5, 129, 1, 128, 4, 2000, 3];
    const filler = new PageFiller();
    for (const id of ids) filler.add(post(id));
    const sorted = [...ids].sort((a, b) => a - b);
    const filled = filler.finish();
    const built = pagesOf(sorted.map((id) => entryOf(post(id))));
    expect(filled.map((page) => page.key)).toEqual([0, 1, 2, 15]);
    expect(text(listBody(filled).json)).toBe(expected(sorted.map((id) => post(id))));
    expect(listBody(filled).etag).toBe(listBody(built).etag);
    for (const [i, page] of filled.entries()) {
      expect([...page.ids]).toEqual([...built[i]!.ids]);
      expect([...page.ends]).toEqual([...built[i]!.ends]);
      expect(Buffer.from(page.digests)).toEqual(Buffer.from(built[i]!.digests));
    }
    expect(new PageFiller().finish()).toEqual([]);
  });

  it("grows a page past the room its first posts gave it, keeping what it held", () => {
    const filler = new PageFiller();
    const small = (id: number) => ({ ...post(id), content: "x" });
    const large = (id: number) => ({ ...post(id), content: "y".repeat(50_000) });
    const posts = [small(1), small(2), large(3), large(4), large(5), small(0)];
    for (const p of posts) filler.add(p);
    const [page] = filler.finish();
    const sorted = [...posts].sort((a, b) => a.id - b.id);
    expect(Buffer.from(page!.chunk).toString("utf8")).toBe(expected(sorted).slice(1, -1));
    expect(entriesOf(page!).map((entry) => entry.id)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
