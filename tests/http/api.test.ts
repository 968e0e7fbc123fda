// Black-box HTTP tests: every route through serverless-offline and the built bundles, as a client sees it.
import * as fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Check,
  body,
  bodyRulesIn,
  changesRules,
  edgeBodies,
} from "../helpers/contract-cases.js";
import { assertMatchesContract, contractSchema } from "../helpers/contract.js";
import { emfProblems } from "../helpers/emf.js";
import { LEASE_WAIT_MS, leaseOffline, type Offline } from "../helpers/offline.js";
import { POST_KEYS, SHOWN_TIMESTAMP, dayFirstUtc } from "../helpers/post-shape.js";

// The shared instance's zone, Asia/Kathmandu (tests/helpers/offline-configs.ts): +05:45 all year,
// no DST, so a timestamp in the wrong zone or with month and day swapped cannot pass.
const ZONE_OFFSET_MS = (5 * 60 + 45) * 60_000;
const BAD_ID = { detail: "Blog post id must be a positive integer" };

interface PostBody {
  id: number;
  title: string;
  content: string;
  created_at: string | null;
  updated_at: string | null;
}

interface Reply {
  status: number;
  headers: Headers;
  body: unknown;
}

let api: Offline;
/** How many answers were checked against openapi.yaml. */
let validated = 0;

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
): Promise<Reply> {
  const init: RequestInit = { method, headers };
  if (body !== undefined) {
    init.body = typeof body === "string" || body instanceof Buffer ? body : JSON.stringify(body);
    init.headers = { "content-type": "application/json", ...headers };
  }
  const response = await fetch(`${api.baseUrl}${path}`, init);
  const text = await response.text();
  // Every answer must be one openapi.yaml documents, or the test fails.
  assertMatchesContract(method, path, { status: response.status, headers: response.headers, text });
  validated++;
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

/** `YYYY-DD-MM HH:MM:SS` for an instant in the server's zone, computed independently of the service. */
function inServiceFormat(instant: Date): string {
  return dayFirstUtc(new Date(instant.getTime() + ZONE_OFFSET_MS));
}

/** Every value the server may show for a moment between two epoch-millisecond readings. */
function serviceTimesBetween(from: number, to: number): string[] {
  const times: string[] = [];
  for (let second = Math.floor(from / 1000); second <= Math.floor(to / 1000); second++) {
    times.push(inServiceFormat(new Date(second * 1000)));
  }
  return times;
}

it("GET /api/post lists [] while the table is empty", async () => {
  expectJson(await request("GET", "/api/post"), 200, []);
});

it("GET /api/post/1 is 404 while the table is empty", async () => {
  expectJson(await request("GET", "/api/post/1"), 404, { detail: "Blog post #1 not found" });
});

describe("POST /api/post", () => {
  it("answers 201 with the post, its Location, and timestamps of now in the server's zone", async () => {
    const before = Date.now();
    const reply = await request("POST", "/api/post", { title: "First", content: "Hello" });
    const after = Date.now();
    expectJson(reply, 201);
    const post = reply.body as PostBody;
    expect(Object.keys(post).sort()).toEqual(POST_KEYS);
    expect(post).toMatchObject({ title: "First", content: "Hello" });
    expect(Number.isSafeInteger(post.id) && post.id > 0).toBe(true);
    expect(reply.headers.get("location")).toBe(`/api/post/${post.id}`);
    expect(post.created_at).toMatch(SHOWN_TIMESTAMP);
    expect(serviceTimesBetween(before, after)).toContain(post.created_at);
    expect(post.updated_at).toBe(post.created_at);
  });

  it("stores the post where Location points", async () => {
    const reply = await request("POST", "/api/post", { title: "Located", content: "Here" });
    expectJson(reply, 201);
    const location = reply.headers.get("location") ?? "";
    expectJson(await request("GET", location), 200, reply.body);
  });

  it.each([
    { sent: "2026-03-04T15:06:07Z", shown: "2026-04-03 20:51:07" },
    { sent: "2026-03-04T20:51:07+05:45", shown: "2026-04-03 20:51:07" },
    { sent: "2026-04-03 20:51:07", shown: "2026-04-03 20:51:07" },
    { sent: "2026-12-31T19:00:00Z", shown: "2027-01-01 00:45:00" },
  ])(
    "keeps client timestamp $sent, shown day first in the server's zone",
    async ({ sent, shown }) => {
      const post = await createPost({
        title: "t",
        content: "c",
        created_at: sent,
        updated_at: sent,
      });
      expect(post).toMatchObject({ created_at: shown, updated_at: shown });
      expectJson(await request("GET", `/api/post/${post.id}`), 200, post);
    },
  );

  it.each([
    { payload: {}, missing: "content, title" },
    { payload: { title: "only a title" }, missing: "content" },
    { payload: { content: "only content" }, missing: "title" },
  ])("is 400 naming the missing fields ($missing)", async ({ payload, missing }) => {
    expectJson(await request("POST", "/api/post", payload), 400, {
      detail: `Missing required fields: ${missing}`,
    });
  });
});

describe("bodies that are not a JSON object", () => {
  let post: PostBody;
  beforeAll(async () => {
    post = await createPost({ title: "Untouched", content: "by bad bodies" });
  });

  // The function gets the body's exact bytes, as API Gateway hands them over for the JSON binary
  // media type (serverless-offline alone would parse it first: a JSON string holding an object
  // would arrive as that object, and `null` as no body).
  const smuggled = JSON.stringify(JSON.stringify({ title: "smuggled", content: "c" }));
  const notUtf8 = Buffer.concat([
    Buffer.from('{"title":"'),
    Buffer.from([0xff, 0xfe]),
    Buffer.from('","content":"c"}'),
  ]);
  const bodies = [
    { body: "{bad json", detail: "Request body is not valid JSON" },
    { body: "[1, 2]", detail: "Request body must be a JSON object" },
    { body: '"text"', detail: "Request body must be a JSON object" },
    { body: smuggled, detail: "Request body must be a JSON object" },
    { body: "null", detail: "Request body must be a JSON object" },
    { body: "42", detail: "Request body must be a JSON object" },
    { body: "true", detail: "Request body must be a JSON object" },
    { body: "", detail: "Request body is required" },
    { body: notUtf8, detail: "Request body is not valid UTF-8" },
  ];
  it.each(["POST", "PUT"].flatMap((method) => bodies.map((row) => ({ method, ...row }))))(
    "$method with body $body is 400 ($detail)",
    async ({ method, body, detail }) => {
      const path = method === "POST" ? "/api/post" : `/api/post/${post.id}`;
      const reply = await request(method, path, body);
      expectJson(reply, 400, { detail });
    },
  );

  it("left the post as it was", async () => {
    expectJson(await request("GET", `/api/post/${post.id}`), 200, post);
  });
});

describe("GET /api/post/{post_pk}", () => {
  it("answers 200 with the stored post", async () => {
    const post = await createPost({ title: "Read me", content: "Body" });
    expectJson(await request("GET", `/api/post/${post.id}`), 200, post);
  });

  it("is 404 for an id no post has", async () => {
    expectJson(await request("GET", "/api/post/424242"), 404, {
      detail: "Blog post #424242 not found",
    });
  });
});

describe("ids in the path that are not canonical positive integers", () => {
  const badIds = ["abc", "0", "01", "-1", "1.5", "1e3", "9007199254740992"];
  it.each(["GET", "PUT", "DELETE"].flatMap((method) => badIds.map((id) => ({ method, id }))))(
    "$method /api/post/$id is 400",
    async ({ method, id }) => {
      const body = method === "PUT" ? { title: "x" } : undefined;
      expectJson(await request(method, `/api/post/${id}`, body), 400, BAD_ID);
    },
  );
});

describe("PUT /api/post/{post_pk}", () => {
  const past = "2026-03-04T15:06:07Z";
  const pastShown = "2026-04-03 20:51:07";

  it("changes the given fields only, keeps created_at and refreshes updated_at", async () => {
    const post = await createPost({
      title: "Old",
      content: "Kept",
      created_at: past,
      updated_at: past,
    });
    const before = Date.now();
    const reply = await request("PUT", `/api/post/${post.id}`, { title: "New" });
    const after = Date.now();
    expectJson(reply, 200);
    const updated = reply.body as PostBody;
    expect(Object.keys(updated).sort()).toEqual(POST_KEYS);
    expect(updated).toMatchObject({
      id: post.id,
      title: "New",
      content: "Kept",
      created_at: pastShown,
    });
    expect(serviceTimesBetween(before, after)).toContain(updated.updated_at);
    expectJson(await request("GET", `/api/post/${post.id}`), 200, updated);
  });

  it("ignores id, created_at and updated_at in the payload", async () => {
    const post = await createPost({ title: "T", content: "C", created_at: past, updated_at: past });
    const reply = await request("PUT", `/api/post/${post.id}`, {
      id: 999_999,
      created_at: "2020-01-01T00:00:00Z",
      updated_at: "2020-01-01T00:00:00Z",
      content: "changed",
    });
    expectJson(reply, 200);
    expect(reply.body).toMatchObject({ id: post.id, content: "changed", created_at: pastShown });
    expect((reply.body as PostBody).updated_at).not.toMatch(/^2020-/);
    expectJson(await request("GET", "/api/post/999999"), 404);
  });

  it("accepts {} and keeps every field but updated_at", async () => {
    const post = await createPost({
      title: "Same",
      content: "Same",
      created_at: past,
      updated_at: past,
    });
    const reply = await request("PUT", `/api/post/${post.id}`, {});
    expectJson(reply, 200);
    expect(reply.body).toMatchObject({
      id: post.id,
      title: "Same",
      content: "Same",
      created_at: pastShown,
    });
    expect((reply.body as PostBody).updated_at).not.toBe(pastShown);
  });

  it("is 404 for an id no post has, and creates nothing", async () => {
    const reply = await request("PUT", "/api/post/888888", { title: "Ghost", content: "None" });
    expectJson(reply, 404, { detail: "Blog post #888888 not found" });
    expectJson(await request("GET", "/api/post/888888"), 404);
    expect((await api.table.items()).map((item) => item.id)).not.toContain(888_888);
  });
});

describe("DELETE /api/post/{post_pk}", () => {
  // HTTP/1.1 carries no body on 204, so only the status is visible here.
  it("answers 204, after which the post is gone", async () => {
    const post = await createPost({ title: "Doomed", content: "Soon gone" });
    expect((await request("DELETE", `/api/post/${post.id}`)).status).toBe(204);
    expectJson(await request("GET", `/api/post/${post.id}`), 404, {
      detail: `Blog post #${post.id} not found`,
    });
    expect((await api.table.items()).map((item) => item.id)).not.toContain(post.id);
  });

  it("answers 204 for an id that never had a post", async () => {
    expect((await request("DELETE", "/api/post/777777")).status).toBe(204);
  });

  it("answers 204 again for a post already deleted", async () => {
    const post = await createPost({ title: "Twice", content: "Deleted" });
    expect((await request("DELETE", `/api/post/${post.id}`)).status).toBe(204);
    expect((await request("DELETE", `/api/post/${post.id}`)).status).toBe(204);
  });
});

describe("GET /api/post", () => {
  it("lists every stored post ascending by id, and nothing else", async () => {
    const created = [
      await createPost({ title: "A", content: "1" }),
      await createPost({ title: "B", content: "2" }),
      await createPost({ title: "C", content: "3" }),
    ];
    const reply = await request("GET", "/api/post");
    expectJson(reply, 200);
    const posts = reply.body as PostBody[];
    const ids = posts.map((post) => post.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    for (const post of posts) {
      expect(Object.keys(post).sort()).toEqual(POST_KEYS);
      expect(post.created_at).toMatch(SHOWN_TIMESTAMP);
      expect(post.updated_at).toMatch(SHOWN_TIMESTAMP);
    }
    expect(posts).toEqual(expect.arrayContaining(created));
    // Exactly the stored posts: the id counter (0) and the change marker (< 0) are storage.
    const storedIds = (await api.table.items())
      .map((item) => item.id as number)
      .filter((id) => id > 0);
    expect(ids).toEqual(storedIds);
  });

  it("ignores query parameters", async () => {
    const all = await request("GET", "/api/post");
    expectJson(await request("GET", "/api/post?limit=1&id=1"), 200, all.body);
  });
});

describe("a trailing slash", () => {
  it("names the same route: the list, and a post", async () => {
    const post = await createPost({ title: "Slash", content: "s" });
    const all = await request("GET", "/api/post");
    expectJson(await request("GET", "/api/post/"), 200, all.body);
    expectJson(await request("GET", `/api/post/${post.id}/`), 200, post);
  });
});

describe("requests generated from the contract's schemas", () => {
  // Of the requests below: how many the contract calls valid and invalid, and the answers'
  // statuses, for the summary line.
  const seen = { sent: 0, valid: 0, invalid: 0, validTaken: 0, invalidRefused: 0 };
  const validatedBefore = { count: 0 };
  beforeAll(() => {
    validatedBefore.count = validated;
  });
  afterAll(() => {
    console.log(
      `contract requests: ${seen.sent} sent, ${seen.valid} valid (${seen.validTaken} taken), ` +
        `${seen.invalid} invalid (${seen.invalidRefused} refused), ` +
        `${validated - validatedBefore.count} answers validated against openapi.yaml`,
    );
  });

  /** Sends one generated request and holds its answer to what the contract said of it. */
  async function send(
    valid: boolean,
    method: string,
    path: string,
    sent: unknown,
    headers: Record<string, string> = {},
    // Statuses about the table's state, not the request's shape.
    stateful: number[] = [],
  ) {
    seen.sent++;
    seen[valid ? "valid" : "invalid"]++;
    const { status } = await request(method, path, sent, headers);
    const what = `${method} ${path} ${JSON.stringify(sent ?? headers).slice(0, 200)} answered ${status}`;
    if (valid) {
      expect(status < 300 || stateful.includes(status), what).toBe(true);
      seen.validTaken++;
    } else {
      expect([400, 413], what).toContain(status);
      seen.invalidRefused++;
    }
  }

  // The server is not in UTC: the range's first and last days may fall outside it.
  const described = bodyRulesIn(true);
  const wire = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;

  it("creates: one the contract calls valid is never refused for its shape, one it calls invalid never taken", async () => {
    const newPost = contractSchema("components/schemas/NewPost") as Check;
    for (const sent of [...edgeBodies, ...fc.sample(body, { numRuns: 150, seed: 20261125 })]) {
      const value = wire(sent);
      // A taken id (409) is about the table, not the request's shape.
      await send(newPost(value) && !described(value), "POST", "/api/post", value, {}, [409]);
    }
    expect(seen.valid).toBeGreaterThan(15);
    expect(seen.invalid).toBeGreaterThan(15);
  }, 60_000);

  it("updates: the same, for a post that exists", async () => {
    const changes = contractSchema("components/schemas/PostChanges") as Check;
    const { id } = await createPost({ title: "Changed by generated bodies", content: "c" });
    const before = { ...seen };
    for (const sent of fc.sample(body, { numRuns: 80, seed: 20261126 })) {
      const value = wire(sent);
      await send(changes(value) && !changesRules(value), "PUT", `/api/post/${id}`, value);
    }
    expect(seen.valid - before.valid).toBeGreaterThan(10);
    expect(seen.invalid - before.invalid).toBeGreaterThan(10);
  }, 60_000);

  it("path ids: valid ones are read (200 or 404), invalid ones are 400", async () => {
    const postPk = contractSchema("paths/~1api~1post~1{post_pk}/parameters/0/schema") as Check;
    const ids = fc.sample(
      fc.oneof(
        fc.integer({ min: -3, max: 50 }),
        fc.constantFrom(2 ** 53 - 1, 2 ** 53, 1.5, -0.5),
        fc.maxSafeInteger(),
      ),
      { numRuns: 40, seed: 20261127 },
    );
    // In canonical decimal, as the parameter's description says a client writes it.
    for (const id of ids) await send(postPk(id), "GET", `/api/post/${id}`, undefined, {}, [404]);
  });

  it("Idempotency-Keys: a valid key is taken, an invalid one refused before any write", async () => {
    const keySchema = contractSchema("paths/~1api~1post/post/parameters/0/schema") as Check;
    const keys = fc.sample(
      fc.oneof(
        fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 20 }),
        fc.constantFrom("!".repeat(255), "!".repeat(256), "a b", "~", "x\ty", "caf\u00e9"),
      ),
      { numRuns: 40, seed: 20261128 },
    );
    // fetch refuses to send a control character in a header, and trims spaces at either end:
    // those keys cannot reach the service as generated.
    // Each key once: a key sent again with another body is a 422, which is about state.
    const sendable = [...new Set(keys)].filter(
      (key) => /^[\t\x20-\x7e]*$/.test(key) && key.trim() === key,
    );
    for (const [i, key] of sendable.entries()) {
      const post = { title: `Keyed ${i}`, content: "c" };
      await send(keySchema(key), "POST", "/api/post", post, { "Idempotency-Key": key }, [409]);
    }
    expect(sendable.length).toBeGreaterThan(20);
  });
});

describe("retried creates with an Idempotency-Key", () => {
  it("answer the first post again, and a different body is 422", async () => {
    const key = { "Idempotency-Key": `http-${Date.now()}` };
    const first = await request("POST", "/api/post", { title: "once", content: "c" }, key);
    expectJson(first, 201);
    const retries = await Promise.all(
      Array.from({ length: 5 }, () =>
        request("POST", "/api/post", { title: "once", content: "c" }, key),
      ),
    );
    for (const retry of retries) expectJson(retry, 201, first.body);
    expect(
      retries.every((retry) => retry.headers.get("location") === first.headers.get("location")),
    ).toBe(true);
    const stored = (await api.table.items()).filter((item) => item.title === "once");
    expect(stored).toHaveLength(1);
    expectJson(await request("POST", "/api/post", { title: "other", content: "c" }, key), 422, {
      detail: "Idempotency-Key was already used with a different request body",
    });
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

// Last in the file: the requests above (2xx and 4xx answers) wrote these lines. All of them are
// request lines: the only other line, init's failure, is plain JSON (docs/operating.md) and would
// fail this, as an init that failed against DynamoDB Local should.
describe("the log lines these requests caused", () => {
  it("are each one valid Embedded Metric Format document", async () => {
    await expect.poll(() => api.logLines().length).toBeGreaterThan(50);
    const lines = api.logLines();
    const statuses = new Set(lines.map((line) => Math.floor(Number(line.status) / 100)));
    expect([...statuses].sort()).toEqual(expect.arrayContaining([2, 4]));
    for (const line of lines) expect(emfProblems(line), JSON.stringify(line)).toEqual([]);
    expect(
      lines.filter((line) => line.ListScanned === 1 || line.ListFromMemory === 1).length,
    ).toBeGreaterThan(0);
  });
});
