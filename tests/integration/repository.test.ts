// Integration: the DynamoDB repository against DynamoDB Local.
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostExistsError, PostNotFoundError } from "../../lib/posts/errors.js";
import { COUNTER_ID } from "../../lib/storage/posts-table.js";
import type { ListBody } from "../../lib/posts/repository.js";
import { DynamoPostRepository } from "../../lib/storage/dynamo-repository.js";
import { type PostsTable, freshTable } from "../helpers/db.js";

let table: PostsTable;
const repo = () => table.repository;
/** The posts of a list body, as a client reads them. */
const listed = (body: ListBody) => JSON.parse(body.json.join("")) as { id: number }[];

beforeAll(async () => {
  table = await freshTable("repository");
});
afterAll(async () => {
  await table.drop();
});

describe("create", () => {
  it("issues increasing ids from the counter and stores both timestamps", async () => {
    const first = await repo().create({ title: "a", content: "1" });
    const second = await repo().create({ title: "b", content: "2" });
    expect(second.id).toBe(first.id + 1);
    expect(first.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(first.updated_at).toBe(first.created_at);
    expect(await repo().get(first.id)).toEqual(first);
  });

  it("keeps a client-chosen id and refuses it a second time without overwriting", async () => {
    const post = await repo().create({ id: 5000, title: "mine", content: "x", created_at: null });
    expect(post).toMatchObject({ id: 5000, created_at: null });
    await expect(repo().create({ id: 5000, title: "other", content: "y" })).rejects.toThrow(
      new PostExistsError(5000),
    );
    expect((await repo().get(5000))?.title).toBe("mine");
  });

  it("skips counter values already taken by client-chosen ids, never overwriting them", async () => {
    const before = await repo().create({ title: "probe", content: "" });
    const taken = [before.id + 1, before.id + 2, before.id + 4];
    for (const id of taken) await repo().create({ id, title: `client ${id}`, content: "" });
    const issued = [];
    for (let i = 0; i < 3; i++)
      issued.push((await repo().create({ title: "auto", content: "" })).id);
    expect(new Set(issued).size).toBe(3);
    for (const id of issued) {
      expect(id).toBeGreaterThan(before.id);
      expect(taken).not.toContain(id);
    }
    for (const id of taken) expect((await repo().get(id))?.title).toBe(`client ${id}`);
  });

  it("gives 100 concurrent creates 100 distinct ids that all list", async () => {
    const made = await Promise.all(
      Array.from({ length: 100 }, (_, i) => repo().create({ title: `c${i}`, content: "" })),
    );
    const ids = new Set(made.map((post) => post.id));
    expect(ids.size).toBe(100);
    const listed = new Set((await table.posts()).map((post) => post.id));
    for (const id of ids) expect(listed.has(id)).toBe(true);
  });
});

describe("update", () => {
  it("changes only the given fields and refreshes updated_at", async () => {
    const post = await repo().create({
      title: "old",
      content: "body",
      created_at: "2020-01-01T00:00:00.000Z",
    });
    const updated = await repo().update(post.id, { title: "new" });
    expect(updated).toMatchObject({
      id: post.id,
      title: "new",
      content: "body",
      created_at: post.created_at,
    });
    expect(updated.updated_at! > post.updated_at!).toBe(true);
  });

  it("never stamps updated_at before a post created while it was on its way", async () => {
    // A post created a few seconds ahead of this clock stands for a create that landed after the
    // update was stamped; one far ahead, or with no created_at, is a client's own.
    const soon = new Date(Date.now() + 5_000).toISOString();
    const post = await repo().create({ title: "t", content: "c", created_at: soon });
    expect((await repo().update(post.id, { title: "u" })).updated_at).toBe(soon);
    const far = await repo().create({
      title: "t",
      content: "c",
      created_at: "2999-01-01T00:00:00.000Z",
    });
    const before = new Date().toISOString();
    expect((await repo().update(far.id, { title: "u" })).updated_at! >= before).toBe(true);
    expect((await repo().get(far.id))!.updated_at! < "2999").toBe(true);
    const none = await repo().create({ title: "t", content: "c", created_at: null });
    expect((await repo().update(none.id, { title: "u" })).updated_at! >= before).toBe(true);
  });

  it("never creates a post", async () => {
    await expect(repo().update(777_777, { title: "x" })).rejects.toThrow(
      new PostNotFoundError(777_777),
    );
    expect(await repo().get(777_777)).toBeUndefined();
  });

  it("loses every race with delete without resurrecting the post", async () => {
    for (let round = 0; round < 20; round++) {
      const post = await repo().create({ title: "race", content: "" });
      const [updated] = await Promise.allSettled([
        repo().update(post.id, { title: "after" }),
        repo().delete(post.id),
      ]);
      expect(await repo().get(post.id)).toBeUndefined();
      if (updated.status === "rejected") expect(updated.reason).toBeInstanceOf(PostNotFoundError);
    }
  });
});

describe("delete", () => {
  it("removes the post and is quiet about a missing one", async () => {
    const post = await repo().create({ title: "bye", content: "" });
    await repo().delete(post.id);
    expect(await repo().get(post.id)).toBeUndefined();
    await expect(repo().delete(post.id)).resolves.toBeUndefined();
  });

  it("refuses to delete the counter", async () => {
    await expect(repo().delete(COUNTER_ID)).rejects.toThrow();
    expect((await table.items()).some((item) => item.id === COUNTER_ID)).toBe(true);
  });
});

describe("list", () => {
  it("never shows the counter and sorts ascending by id", async () => {
    const posts = listed(await repo().listJson());
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.some((post) => post.id === COUNTER_ID)).toBe(false);
    const ids = posts.map((post) => post.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });
});

describe("a table larger than one 1 MB Scan page", () => {
  let big: PostsTable;
  beforeAll(async () => {
    big = await freshTable("big");
  });
  afterAll(async () => {
    await big.drop();
  });

  it("lists in full", async () => {
    const content = "x".repeat(10_000);
    const count = 250; // ~2.5 MB: at least three Scan pages
    for (let i = 0; i < count; i += 25) {
      await Promise.all(
        Array.from({ length: 25 }, (_, j) =>
          big.repository.create({ title: `p${i + j}`, content }),
        ),
      );
    }
    const firstPage = await big.documentClient.send(new ScanCommand({ TableName: big.tableName }));
    expect(firstPage.LastEvaluatedKey).toBeDefined(); // the table really spans several pages
    const posts = listed(await big.repository.listJson());
    expect(posts).toHaveLength(count);
    expect(posts.map((post) => post.id)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  });
});

describe("id blocks (ID_BLOCK_SIZE > 1)", () => {
  it("gives unique ids from reserved blocks and moves the counter a block at a time", async () => {
    const blocks = await freshTable("blocks");
    try {
      const options = { idBlockSize: 10 };
      const first = new DynamoPostRepository(blocks.documentClient, blocks.tableName, options);
      const second = new DynamoPostRepository(blocks.documentClient, blocks.tableName, options);
      const made = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          (i % 2 ? first : second).create({ title: `b${i}`, content: "" }),
        ),
      );
      expect(new Set(made.map((post) => post.id)).size).toBe(30);
      const counter = (await blocks.items()).find((item) => item.id === COUNTER_ID);
      expect(Number(counter?.last_id) % 10).toBe(0);
      expect(Number(counter?.last_id)).toBeGreaterThanOrEqual(Math.max(...made.map((p) => p.id)));
      expect(await blocks.posts()).toHaveLength(30);
    } finally {
      await blocks.drop();
    }
  });
});
