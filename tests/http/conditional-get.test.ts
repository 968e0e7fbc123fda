// Black-box HTTP tests: ETag and If-None-Match on list and get, through serverless-offline. How
// tags are made and compared, the gzipped body's included, is the unit tests' (tests/unit/posts,
// tests/unit/http); that two instances give the same posts the same tag, list-cache.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertMatchesContract } from "../helpers/contract.js";
import { LEASE_WAIT_MS, leaseOffline, type Offline } from "../helpers/offline.js";

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

describe("list", () => {
  it("answers 304 with no body while nothing changed, and the tag follows the body", async () => {
    await send("POST", "/api/post", {}, { title: "first", content: "c" });
    const first = await send("GET", "/api/post");
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-cache");
    const tag = tagOf(first);

    const again = await send("GET", "/api/post", { "if-none-match": tag });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("etag")).toBe(tag);
    // A W/ prefix, a list of tags or * match too (tests/unit/http/conditional.test.ts).
    expect((await send("GET", "/api/post", { "if-none-match": `W/"x", ${tag}` })).status).toBe(304);
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
});

describe("get", () => {
  it("answers 304 for the tag it sent, and 200 with a new tag after an update", async () => {
    const created = await send("POST", "/api/post", {}, { title: "one", content: "c" });
    const { id } = JSON.parse(created.text) as { id: number };
    const first = await send("GET", `/api/post/${id}`);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-cache");
    const tag = tagOf(first);
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
