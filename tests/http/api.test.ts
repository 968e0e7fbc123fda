// Black-box HTTP tests: every route through serverless-offline and the built bundles, as a client sees it.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { assertMatchesContract } from "../helpers/contract.js";
import { emfProblems } from "../helpers/emf.js";
import { LEASE_WAIT_MS, leaseOffline, type Offline, serve } from "../helpers/offline.js";
import { dayFirstUtc } from "../helpers/post-shape.js";

// Asia/Kathmandu, +05:45 all year: a timestamp in the wrong zone or day-month order cannot pass.
const ZONE_OFFSET_MS = (5 * 60 + 45) * 60_000;
/** A refusal's body: its text is the unit tests' to check (tests/unit), its shape the contract's. */
const REFUSAL = { detail: expect.any(String) };

interface PostBody {
  id: number;
  title: string;
  content: string;
  created_at: string | null;
  updated_at: string | null;
}

type Reply = { status: number; headers: Headers; body: unknown };

let api: Offline;

beforeAll(async () => {
  // Lines at info, so the last test can check every line these requests caused.
  api = await leaseOffline("open");
  expect(api.timeZone, "the zone ZONE_OFFSET_MS stands for").toBe("Asia/Kathmandu");
}, LEASE_WAIT_MS);

afterAll(async () => {
  await api?.stop();
});

/** Sends a request; a string or bytes body goes as is, anything else as JSON. */
async function request(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  baseUrl = api.baseUrl,
): Promise<Reply> {
  const init: RequestInit = { method, headers };
  if (body !== undefined) {
    init.body = typeof body === "string" || body instanceof Buffer ? body : JSON.stringify(body);
    init.headers = { "content-type": "application/json", ...headers };
  }
  const response = await fetch(`${baseUrl}${path}`, init);
  const text = await response.text();
  // Every answer must be one openapi.yaml documents, or the test fails.
  assertMatchesContract(method, path, { status: response.status, headers: response.headers, text });
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    throw new Error(`${method} ${path} answered ${response.status} with a non-JSON body: ${text}`);
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** Asserts a JSON reply: status, media type and, when given, the whole body. */
function expectJson(reply: Reply, status: number, body?: unknown): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  // serverless-offline appends `; charset=utf-8`; the media type is what matters.
  expect(reply.headers.get("content-type")).toMatch(/^application\/json(;|$)/);
  if (body !== undefined) expect(reply.body).toEqual(body);
}

async function createPost(fields: Record<string, unknown>): Promise<PostBody> {
  const reply = await request("POST", "/api/post", fields);
  expectJson(reply, 201);
  return reply.body as PostBody;
}

/** A create's fields with both timestamps set by the client. */
const stamped = (at: string) => ({ title: "t", content: "c", created_at: at, updated_at: at });

/** Every `YYYY-DD-MM HH:MM:SS` the server may show (its zone) between two epoch-ms readings. */
function serviceTimesBetween(from: number, to: number): string[] {
  const times: string[] = [];
  for (let second = Math.floor(from / 1000); second <= Math.floor(to / 1000); second++) {
    times.push(dayFirstUtc(new Date(second * 1000 + ZONE_OFFSET_MS)));
  }
  return times;
}

it("while the table is empty, lists [] and GET /api/post/1 is 404", async () => {
  expectJson(await request("GET", "/api/post"), 200, []);
  expectJson(await request("GET", "/api/post/1"), 404, { detail: "Blog post #1 not found" });
});

describe("POST /api/post", () => {
  it("answers 201 with the post, its Location, and timestamps of now in the server's zone", async () => {
    const before = Date.now();
    const reply = await request("POST", "/api/post", { title: "First", content: "Hello" });
    const after = Date.now();
    expectJson(reply, 201);
    // Its keys and their formats are the contract's: request() holds every answer to it.
    const post = reply.body as PostBody;
    expect(post).toMatchObject({ title: "First", content: "Hello" });
    expect(reply.headers.get("location")).toBe(`/api/post/${post.id}`);
    expect(serviceTimesBetween(before, after)).toContain(post.created_at);
    expect(post.updated_at).toBe(post.created_at);
    expectJson(await request("GET", `/api/post/${post.id}`), 200, post);
  });

  it.each([
    { sent: "2026-03-04T15:06:07Z", shown: "2026-04-03 20:51:07" },
    { sent: "2026-03-04T20:51:07+05:45", shown: "2026-04-03 20:51:07" },
    { sent: "2026-04-03 20:51:07", shown: "2026-04-03 20:51:07" },
    { sent: "2026-12-31T19:00:00Z", shown: "2027-01-01 00:45:00" },
  ])("keeps a client's $sent, shown day first in the server's zone", async ({ sent, shown }) => {
    const post = await createPost(stamped(sent));
    expect(post).toMatchObject({ created_at: shown, updated_at: shown });
    expectJson(await request("GET", `/api/post/${post.id}`), 200, post);
  });
});

describe("bodies that are not a JSON object", () => {
  let post: PostBody;
  beforeAll(async () => {
    post = await createPost({ title: "Untouched", content: "by bad bodies" });
  });

  // The function gets the body's exact bytes, as API Gateway hands them over.
  const smuggled = JSON.stringify(JSON.stringify({ title: "smuggled", content: "c" }));
  const notUtf8 = Buffer.from('{"title":"\xff\xfe","content":"c"}', "latin1");
  const bodies = ["{bad json", "[1, 2]", '"text"', smuggled, "null", "42", "true", "", notUtf8];
  it.each(["POST", "PUT"].flatMap((method) => bodies.map((body) => ({ method, body }))))(
    "$method with body $body is 400",
    async ({ method, body }) => {
      const path = method === "POST" ? "/api/post" : `/api/post/${post.id}`;
      expectJson(await request(method, path, body), 400, REFUSAL);
    },
  );

  it("left the post as it was", async () => {
    expectJson(await request("GET", `/api/post/${post.id}`), 200, post);
  });
});

describe("ids in the path that are not canonical positive integers", () => {
  const badIds = ["abc", "0", "01", "-1", "1.5", "1e3", "9007199254740992"];
  it.each(["GET", "PUT", "DELETE"].flatMap((method) => badIds.map((id) => ({ method, id }))))(
    "$method /api/post/$id is 400",
    async ({ method, id }) => {
      const body = method === "PUT" ? { title: "x" } : undefined;
      expectJson(await request(method, `/api/post/${id}`, body), 400, REFUSAL);
    },
  );
});

describe("PUT /api/post/{post_pk}", () => {
  const past = "2026-03-04T15:06:07Z";
  const pastShown = "2026-04-03 20:51:07";

  it("changes the given fields only, keeps created_at and refreshes updated_at", async () => {
    const post = await createPost({ ...stamped(past), title: "Old", content: "Kept" });
    const before = Date.now();
    const reply = await request("PUT", `/api/post/${post.id}`, { title: "New" });
    const after = Date.now();
    expectJson(reply, 200);
    const updated = reply.body as PostBody;
    const kept = { id: post.id, content: "Kept", created_at: pastShown };
    expect(updated).toMatchObject({ ...kept, title: "New" });
    expect(serviceTimesBetween(before, after)).toContain(updated.updated_at);
    expectJson(await request("GET", `/api/post/${post.id}`), 200, updated);
  });

  it("is 404 for an id no post has, and creates nothing", async () => {
    const reply = await request("PUT", "/api/post/888888", { title: "Ghost", content: "None" });
    expectJson(reply, 404, { detail: "Blog post #888888 not found" });
    expectJson(await request("GET", "/api/post/888888"), 404);
    expect((await api.table.items()).map((item) => item.id)).not.toContain(888_888);
  });
});

describe("DELETE /api/post/{post_pk}", () => {
  it("answers 204, after which the post is gone; again, and for an id never used", async () => {
    const post = await createPost({ title: "Doomed", content: "Soon gone" });
    expect((await request("DELETE", `/api/post/${post.id}`)).status).toBe(204);
    expectJson(await request("GET", `/api/post/${post.id}`), 404, REFUSAL);
    expect((await api.table.items()).map((item) => item.id)).not.toContain(post.id);
    expect((await request("DELETE", `/api/post/${post.id}`)).status).toBe(204);
    expect((await request("DELETE", "/api/post/777777")).status).toBe(204);
  });
});

describe("GET /api/post", () => {
  it("lists every stored post ascending by id, and nothing else; ignores a trailing slash or query", async () => {
    const created = [
      await createPost({ title: "A", content: "1" }),
      await createPost({ title: "B", content: "2" }),
      await createPost({ title: "C", content: "3" }),
    ];
    const reply = await request("GET", "/api/post");
    expectJson(reply, 200);
    const posts = reply.body as PostBody[];
    expect(posts).toEqual(expect.arrayContaining(created));
    // Exactly the stored posts, ascending: the id counter (0) and change marker (< 0) are not.
    expect(posts.map((post) => post.id)).toEqual((await api.table.posts()).map((post) => post.id));
    expectJson(await request("GET", "/api/post/"), 200, posts);
    expectJson(await request("GET", "/api/post?limit=1&id=1"), 200, posts);
    expectJson(await request("GET", `/api/post/${created[0]!.id}/`), 200, created[0]);
  });
});

describe("retried creates with an Idempotency-Key", () => {
  it("answer the first post again, and a different body is 422", async () => {
    const key = { "Idempotency-Key": `http-${Date.now()}` };
    const create = (title: string) => request("POST", "/api/post", { title, content: "c" }, key);
    const first = await create("once");
    expectJson(first, 201);
    const retries = await Promise.all(Array.from({ length: 5 }, () => create("once")));
    for (const retry of retries) {
      expectJson(retry, 201, first.body);
      expect(retry.headers.get("location")).toBe(first.headers.get("location"));
    }
    const stored = (await api.table.items()).filter((item) => item.title === "once");
    expect(stored).toHaveLength(1);
    expectJson(await create("other"), 422, REFUSAL);
  });
});

describe("compression", () => {
  it("gzips a large list for a client that accepts it", async () => {
    for (let i = 0; i < 3; i++) await createPost({ title: `long ${i}`, content: "z".repeat(600) });
    // fetch asks for gzip by default; `identity` asks for the body as it is.
    const plain = await request("GET", "/api/post", undefined, { "accept-encoding": "identity" });
    const zipped = await request("GET", "/api/post", undefined, { "accept-encoding": "gzip" });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(plain.headers.get("content-encoding")).toBeNull();
    expectJson(zipped, 200, plain.body); // fetch decompresses: the same list either way
  });
});

describe("a storage failure", () => {
  // Over tables that do not exist, every storage call fails.
  let broken: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    const missing = `http-missing-${process.pid}`;
    broken = await serve({
      dynamoEndpoint: inject("dynamoEndpoint"),
      tableName: missing,
      idempotencyTableName: `${missing}-keys`,
    });
  });
  afterAll(async () => {
    await broken?.stop();
  });

  it.each([
    ["POST", "/api/post", { title: "t", content: "c" }],
    ["PUT", "/api/post/1", { title: "t" }],
    ["DELETE", "/api/post/1", undefined],
  ])("%s %s is 500 with DB ERROR and the error's name", async (method, path, body) => {
    const detail = expect.stringMatching(/^DB ERROR: ResourceNotFoundException: /);
    expectJson(await request(method, path, body, {}, broken.baseUrl), 500, { detail });
  });
});

// Last: every line the requests above wrote is a request line.
describe("the log lines these requests caused", () => {
  it("are each one valid Embedded Metric Format document", async () => {
    await expect.poll(() => api.logLines().length).toBeGreaterThan(50);
    const lines = api.logLines();
    const statuses = new Set(lines.map((line) => Math.floor(Number(line.status) / 100)));
    expect([...statuses].sort()).toEqual(expect.arrayContaining([2, 4]));
    for (const line of lines) expect(emfProblems(line), JSON.stringify(line)).toEqual([]);
    expect(lines.some((line) => line.ListScanned === 1 || line.ListFromMemory === 1)).toBe(true);
  });
});
