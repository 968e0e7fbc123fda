// Black-box HTTP tests: ETag and If-None-Match on list and get, through serverless-offline. How
// tags are made and compared is the unit tests' (tests/unit/posts, tests/unit/http).
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

type Seen = Parameters<typeof assertMatchesContract>[2];

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
  // A tag that does not match is answered 200: the next test, after each write.
  it("answers 304 with no body while nothing changed", async () => {
    await send("POST", "/api/post", {}, { title: "first", content: "c" });
    const first = await send("GET", "/api/post");
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-cache");
    const tag = tagOf(first);

    const again = await send("GET", "/api/post", { "if-none-match": tag });
    expect([again.status, again.text, again.headers.get("etag")]).toEqual([304, "", tag]);
  });

  it("answers 200 with a new tag once a create, an update or a delete is acknowledged", async () => {
    let held = await send("GET", "/api/post");
    /** After a write: the list held is stale, and the new one lists `titles`. */
    const listsAfter = async (write: Seen, status: number, listed: string[]) => {
      expect(write.status).toBe(status);
      const next = await send("GET", "/api/post", { "if-none-match": tagOf(held) });
      expect(next.status, `${status} then list`).toBe(200);
      expect(titles(next)).toEqual(listed);
      expect(tagOf(next)).not.toBe(tagOf(held));
      held = next;
    };
    const created = await send("POST", "/api/post", {}, { title: "second", content: "c" });
    await listsAfter(created, 201, ["first", "second"]);
    const path = `/api/post/${(JSON.parse(created.text) as { id: number }).id}`;
    await listsAfter(await send("PUT", path, {}, { title: "renamed" }), 200, ["first", "renamed"]);
    await listsAfter(await send("DELETE", path), 204, ["first"]);
  });
});

describe("get", () => {
  it("answers 304 for the tag it sent, 200 with a new tag after an update, 404 once gone", async () => {
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

    // Not 304, whatever the client holds.
    await send("DELETE", `/api/post/${id}`);
    for (const held of [tagOf(changed), "*"]) {
      expect((await send("GET", `/api/post/${id}`, { "if-none-match": held })).status).toBe(404);
    }
  });
});
