// Integration: each handler, called with API Gateway events, against DynamoDB Local.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { formatTimestamp } from "../../lib/posts/timestamps.js";
import { type PostsTable, freshTable } from "../helpers/db.js";
import { invoke } from "../helpers/events.js";
import { type Handlers, handlersOver } from "../helpers/handlers.js";
import { SHOWN_TIMESTAMP } from "../helpers/post-shape.js";

let table: PostsTable;
let api: Handlers;

beforeAll(async () => {
  table = await freshTable("handlers");
  api = handlersOver(table.repository);
});
afterAll(async () => {
  await table.drop();
});
beforeEach(() => {
  process.env.TZ = "UTC";
});

const create = (body: unknown) => invoke(api.create, { method: "POST", body });

/** Every rejected request must leave the table exactly as it was. */
async function expectNoChange(run: () => Promise<unknown>) {
  const before = await table.items();
  await run();
  expect(await table.items()).toEqual(before);
}

describe("create", () => {
  it("answers 201 with the five keys, both timestamps now, and a Location", async () => {
    const started = Date.now();
    const response = await create({ title: "Hello", content: "World" });
    expect(response.status).toBe(201);
    const post = response.body as Record<string, unknown>;
    expect(Object.keys(post).sort()).toEqual([
      "content",
      "created_at",
      "id",
      "title",
      "updated_at",
    ]);
    expect(post).toMatchObject({ title: "Hello", content: "World" });
    expect(post.created_at).toMatch(SHOWN_TIMESTAMP);
    expect(post.updated_at).toBe(post.created_at);
    const nowShown = [
      formatTimestamp(new Date(started).toISOString()),
      formatTimestamp(new Date().toISOString()),
    ];
    expect(nowShown).toContain(post.created_at);
    // Under the stage the event came through, as on the default URL.
    expect(response.headers.location).toBe(`/dev/api/post/${post.id}`);
  });

  it("keeps a client-sent id, created_at and updated_at", async () => {
    const response = await create({
      id: 4242,
      title: "t",
      content: "c",
      created_at: "2026-04-03 15:06:07",
      updated_at: null,
    });
    expect(response).toMatchObject({
      status: 201,
      body: { id: 4242, created_at: "2026-04-03 15:06:07", updated_at: null },
    });
    expect((await invoke(api.get, { method: "GET", postId: "4242" })).body).toEqual(response.body);
  });

  it("shows timestamps in the configured zone", async () => {
    await create({ id: 4300, title: "t", content: "c", created_at: "2026-03-04T15:06:07Z" });
    process.env.TZ = "Asia/Tokyo";
    const shown = await invoke(api.get, { method: "GET", postId: "4300" });
    expect(shown.body).toMatchObject({ created_at: "2026-05-03 00:06:07" });
  });

  it("answers 409 for an id already taken and changes nothing", async () => {
    await create({ id: 4400, title: "first", content: "c" });
    await expectNoChange(async () => {
      const response = await create({ id: 4400, title: "second", content: "c" });
      expect(response).toEqual(
        expect.objectContaining({
          status: 409,
          body: { detail: "Blog post #4400 already exists" },
        }),
      );
    });
  });

  it.each([
    [{}, 400, "Missing required fields: content, title"],
    [{ title: "t" }, 400, "Missing required fields: content"],
    [{ content: "c" }, 400, "Missing required fields: title"],
    [{ title: "t", content: "c", author: "me" }, 400, "Unknown fields: author"],
    [{ title: 1, content: "c" }, 400, "title must be a string"],
    [{ title: "t", content: null }, 400, "content must be a string"],
    [{ title: "x".repeat(101), content: "c" }, 400, "title must be at most 100 characters"],
    [
      { title: "t", content: "x".repeat(300_001) },
      413,
      "content must be at most 300000 bytes (UTF-8)",
    ],
    [
      { id: 0, title: "t", content: "c" },
      400,
      "id must be a positive integer no greater than 9007199254740991",
    ],
    [
      { id: "5", title: "t", content: "c" },
      400,
      "id must be a positive integer no greater than 9007199254740991",
    ],
    ["not json", 400, "Request body is not valid JSON"],
    ["[1,2]", 400, "Request body must be a JSON object"],
  ])("rejects %j with %i before any write", async (body, status, detail) => {
    await expectNoChange(async () => {
      expect(await create(body)).toMatchObject({ status, body: { detail } });
    });
  });

  it("rejects a bad created_at before any write", async () => {
    await expectNoChange(async () => {
      const response = await create({
        title: "t",
        content: "c",
        created_at: "2026-01-13 00:00:00",
      }); // month 13
      expect(response.status).toBe(400);
      expect((response.body as { detail: string }).detail).toMatch(/^created_at must be null/);
    });
  });

  it("stores unicode, NUL and empty strings exactly", async () => {
    const title = "\u0000 😀 é 中文 \u200d";
    const response = await create({ title, content: "" });
    const id = (response.body as { id: number }).id;
    expect((await invoke(api.get, { method: "GET", postId: String(id) })).body).toMatchObject({
      title,
      content: "",
    });
  });

  it("accepts a 100-character title of emoji and a 300,000-byte content", async () => {
    const response = await create({ title: "😀".repeat(100), content: "x".repeat(300_000) });
    expect(response.status).toBe(201);
  });
});

describe("get", () => {
  it("answers 200 with the post", async () => {
    const made = await create({ title: "g", content: "c" });
    const id = (made.body as { id: number }).id;
    expect(await invoke(api.get, { method: "GET", postId: String(id) })).toMatchObject({
      status: 200,
      body: made.body,
    });
  });

  it("answers 404 for an id with no post", async () => {
    expect(await invoke(api.get, { method: "GET", postId: "987654" })).toMatchObject({
      status: 404,
      body: { detail: "Blog post #987654 not found" },
    });
  });
});

describe("update", () => {
  it("changes the given fields, keeps the rest, refreshes updated_at", async () => {
    const made = await create({
      title: "before",
      content: "body",
      created_at: "2020-01-01T00:00:00Z",
      updated_at: "2020-01-01T00:00:00Z",
    });
    const id = (made.body as { id: number }).id;
    const response = await invoke(api.update, {
      method: "PUT",
      postId: String(id),
      body: { title: "after" },
    });
    expect(response).toMatchObject({
      status: 200,
      body: { id, title: "after", content: "body", created_at: "2020-01-01 00:00:00" },
    });
    expect((response.body as { updated_at: string }).updated_at).not.toBe("2020-01-01 00:00:00");
  });

  it("drops id, created_at and updated_at silently", async () => {
    const bystander = await create({ id: 4500, title: "bystander", content: "untouched" });
    expect(bystander.status).toBe(201);
    const made = await create({ title: "t", content: "c", created_at: "2021-02-03T04:05:06Z" });
    const id = (made.body as { id: number }).id;
    const before = await table.items();
    const response = await invoke(api.update, {
      method: "PUT",
      postId: String(id),
      body: {
        id: 4500,
        created_at: "1999-01-01T00:00:00Z",
        updated_at: "not even a date",
        content: "new",
      },
    });
    expect(response).toMatchObject({
      status: 200,
      body: { id, content: "new", created_at: "2021-03-02 04:05:06" },
    });
    // The body's id neither redirected the update to post #4500 nor renumbered this post.
    // Only post ids: the update's marker ADD may create a shard item (a negative id) the first time.
    const postIds = (items: Record<string, unknown>[]) =>
      items.map((item) => Number(item.id)).filter((itemId) => itemId > 0);
    const after = await table.items();
    expect(postIds(after)).toEqual(postIds(before));
    expect(after.find((item) => item.id === 4500)).toEqual(before.find((item) => item.id === 4500));
  });

  it("accepts {} and only refreshes updated_at", async () => {
    const made = await create({ title: "t", content: "c", updated_at: null });
    const id = (made.body as { id: number }).id;
    const response = await invoke(api.update, { method: "PUT", postId: String(id), body: {} });
    expect(response).toMatchObject({ status: 200, body: { title: "t", content: "c" } });
    expect((response.body as { updated_at: unknown }).updated_at).toMatch(SHOWN_TIMESTAMP);
  });

  it("answers 404 for a missing post and does not create it", async () => {
    await expectNoChange(async () => {
      expect(
        await invoke(api.update, { method: "PUT", postId: "555555", body: { title: "x" } }),
      ).toMatchObject({
        status: 404,
        body: { detail: "Blog post #555555 not found" },
      });
    });
  });

  it.each([
    [{ title: null }, "title must be a string"],
    [{ title: "x".repeat(101) }, "title must be at most 100 characters"],
    [{ tags: [] }, "Unknown fields: tags"],
  ])("rejects %j with 400 whether or not the post exists", async (body, detail) => {
    const made = await create({ title: "t", content: "c" });
    const id = String((made.body as { id: number }).id);
    await expectNoChange(async () => {
      for (const postId of [id, "666666"]) {
        expect(await invoke(api.update, { method: "PUT", postId, body })).toMatchObject({
          status: 400,
          body: { detail },
        });
      }
    });
  });
});

describe("delete", () => {
  it("answers 204 with a detail and removes the post", async () => {
    const made = await create({ title: "t", content: "c" });
    const id = (made.body as { id: number }).id;
    expect(await invoke(api.delete, { method: "DELETE", postId: String(id) })).toMatchObject({
      status: 204,
      body: { detail: `Blog post #${id} deleted` },
    });
    expect((await invoke(api.get, { method: "GET", postId: String(id) })).status).toBe(404);
  });

  it("answers 204 for an id that never had a post", async () => {
    expect(await invoke(api.delete, { method: "DELETE", postId: "31337" })).toMatchObject({
      status: 204,
      body: { detail: "Blog post #31337 deleted" },
    });
  });
});

describe("list", () => {
  it("answers [] for an empty table", async () => {
    const empty = await freshTable("empty");
    try {
      expect(await invoke(handlersOver(empty.repository).list, { method: "GET" })).toMatchObject({
        status: 200,
        body: [],
      });
    } finally {
      await empty.drop();
    }
  });

  it("answers every post ascending by id, never the counter or the change marker", async () => {
    const response = await invoke(api.list, { method: "GET" });
    const posts = response.body as { id: number }[];
    const stored = (await table.items()).filter((item) => Number(item.id) > 0);
    expect(posts.map((post) => post.id)).toEqual(stored.map((item) => item.id));
    expect(posts.every((post) => Object.keys(post).length === 5)).toBe(true);
  });
});
