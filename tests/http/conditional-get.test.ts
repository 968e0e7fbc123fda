// Black-box HTTP tests: ETag and If-None-Match on list and get, through serverless-offline.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertMatchesContract } from "../helpers/contract.js";
import { LEASE_WAIT_MS, leaseOffline, type Offline } from "../helpers/offline.js";

/**
 * The list's tag as the service makes it: each post's digest (16 bytes of a SHA-256 of its JSON),
 * joined per page of 128 ids and hashed into the page's digest, the pages' digests hashed in order.
 */
function listTagOf(text: string): string {
  const posts = JSON.parse(text) as { id: number }[];
  const digest = (data: Buffer | string, prefix = "") =>
    createHash("sha256").update(prefix).update(data).digest().subarray(0, 16);
  const pages = new Map<number, Buffer[]>();
  for (const post of posts) {
    const page = Math.floor(post.id / 128);
    pages.set(page, [...(pages.get(page) ?? []), digest(JSON.stringify(post))]);
  }
  const hash = createHash("sha256").update("pages:");
  for (const digests of pages.values()) hash.update(digest(Buffer.concat(digests), "page:"));
  return `"${hash.digest("base64url").slice(0, 32)}"`;
}

let api: Offline;

beforeAll(async () => {
  api = await leaseOffline("open");
}, LEASE_WAIT_MS);
afterAll(async () => {
  await api?.stop();
});

interface Seen {
  status: number;
  headers: Headers;
  text: string;
}

/** Sends a request; every answer must be one openapi.yaml documents. */
async function send(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<Seen> {
  // fetch asks for gzip by default; a test that wants it says so.
  const defaults = { "content-type": "application/json", "accept-encoding": "identity" };
  const init: RequestInit = { method, headers: { ...defaults, ...headers } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(`${api.baseUrl}${path}`, init);
  const seen = { status: response.status, headers: response.headers, text: await response.text() };
  assertMatchesContract(method, path, seen);
  return seen;
}

const tagOf = (seen: Seen) => {
  const tag = seen.headers.get("etag");
  expect(tag, `no ETag on ${seen.status}`).toMatch(/^"[A-Za-z0-9_-]+"$/);
  return tag!;
};
const titles = (seen: Seen) => (JSON.parse(seen.text) as { title: string }[]).map((p) => p.title);
const sha256 = (text: string) => createHash("sha256").update(text).digest("base64url");

describe("list", () => {
  it("answers 304 with no body while nothing changed, and the tag follows the body", async () => {
    await send("POST", "/api/post", {}, { title: "first", content: "c" });
    const first = await send("GET", "/api/post");
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-cache");
    const tag = tagOf(first);
    // Derived from the posts alone, each post's JSON hashed on its own: the same posts always have
    // the same tag, on any instance.
    expect(tag).toBe(listTagOf(first.text));

    const again = await send("GET", "/api/post", { "if-none-match": tag });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("etag")).toBe(tag);
    // If-None-Match compares weakly: a W/ prefix or a list of tags still matches.
    expect((await send("GET", "/api/post", { "if-none-match": `W/${tag}` })).status).toBe(304);
    expect((await send("GET", "/api/post", { "if-none-match": `"x", ${tag}` })).status).toBe(304);
    expect((await send("GET", "/api/post", { "if-none-match": "*" })).status).toBe(304);
    const other = await send("GET", "/api/post", { "if-none-match": '"not-this-list"' });
    expect(other.status).toBe(200);
    expect(other.text).toBe(first.text);
  });

  it("answers 200 with a new tag once a create, an update or a delete is acknowledged", async () => {
    let held = await send("GET", "/api/post");
    const created = await send("POST", "/api/post", {}, { title: "second", content: "c" });
    expect(created.status).toBe(201);
    const { id } = JSON.parse(created.text) as { id: number };
    const steps: [string, string, unknown, (list: string[]) => void][] = [
      ["PUT", `/api/post/${id}`, { title: "renamed" }, (list) => expect(list).toContain("renamed")],
      ["DELETE", `/api/post/${id}`, undefined, (list) => expect(list).not.toContain("renamed")],
    ];
    const after = await send("GET", "/api/post", { "if-none-match": tagOf(held) });
    expect(after.status).toBe(200);
    expect(titles(after)).toContain("second");
    expect(tagOf(after)).not.toBe(tagOf(held));
    held = after;
    for (const [method, path, body, check] of steps) {
      expect((await send(method, path, {}, body)).status).toBeLessThan(300);
      const next = await send("GET", "/api/post", { "if-none-match": tagOf(held) });
      expect(next.status, `${method} then list`).toBe(200);
      check(titles(next));
      expect(tagOf(next)).not.toBe(tagOf(held));
      held = next;
    }
  });

  it("tags the gzipped body apart, and either tag revalidates", async () => {
    for (let i = 0; i < 10; i++) {
      await send("POST", "/api/post", {}, { title: `long ${i}`, content: "x".repeat(200) });
    }
    const plain = await send("GET", "/api/post");
    const zipped = await send("GET", "/api/post", { "accept-encoding": "gzip" });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.text).toBe(plain.text);
    expect(tagOf(zipped)).toBe(`${tagOf(plain).slice(0, -1)}-gzip"`);
    for (const [accept, tag] of [
      ["gzip", tagOf(zipped)],
      ["gzip", tagOf(plain)],
      ["identity", tagOf(zipped)],
    ] as const) {
      const seen = await send("GET", "/api/post", {
        "accept-encoding": accept,
        "if-none-match": tag,
      });
      expect(seen.status, `${accept} with ${tag}`).toBe(304);
      expect(seen.text).toBe("");
    }
  });
});

describe("get", () => {
  it("answers 304 for the tag it sent, and 200 with a new tag after an update", async () => {
    const created = await send("POST", "/api/post", {}, { title: "one", content: "c" });
    const { id } = JSON.parse(created.text) as { id: number };
    const first = await send("GET", `/api/post/${id}`);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-cache");
    const tag = tagOf(first);
    expect(tag).toBe(`"${sha256(first.text).slice(0, 32)}"`);
    const again = await send("GET", `/api/post/${id}`, { "if-none-match": tag });
    expect([again.status, again.text, again.headers.get("etag")]).toEqual([304, "", tag]);

    await send("PUT", `/api/post/${id}`, {}, { content: "changed" });
    const changed = await send("GET", `/api/post/${id}`, { "if-none-match": tag });
    expect(changed.status).toBe(200);
    expect(JSON.parse(changed.text)).toMatchObject({ id, content: "changed" });
    expect(tagOf(changed)).not.toBe(tag);
  });

  it("answers 404, not 304, for a post that is gone, whatever the client holds", async () => {
    const created = await send("POST", "/api/post", {}, { title: "gone", content: "c" });
    const { id } = JSON.parse(created.text) as { id: number };
    const tag = tagOf(await send("GET", `/api/post/${id}`));
    await send("DELETE", `/api/post/${id}`);
    expect((await send("GET", `/api/post/${id}`, { "if-none-match": tag })).status).toBe(404);
    expect((await send("GET", `/api/post/${id}`, { "if-none-match": "*" })).status).toBe(404);
  });
});
