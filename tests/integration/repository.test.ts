// Integration: the DynamoDB repository against DynamoDB Local: what only a real table shows (item
// size, Scan pages, races, id blocks) and the version each write stores (concurrent writers:
// workload.test.ts).
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostNotFoundError } from "../../lib/posts/errors.js";
import { COUNTER_ID } from "../../lib/storage/posts-table.js";
import type { ListBody } from "../../lib/posts/repository.js";
import { DynamoPostRepository } from "../../lib/storage/dynamo-repository.js";
import { firstVersion } from "../../lib/storage/post-version.js";
import { type PostsTable, freshTable } from "../helpers/db.js";
import { POST_KEYS } from "../helpers/post-shape.js";

let table: PostsTable;
const repo = () => table.repository;
/** The posts of a list body, as a client reads them. */
const listed = (body: ListBody) => JSON.parse(body.json.join("")) as { id: number }[];
const storedVersion = async (id: number) =>
  (await table.items()).find((item) => item.id === id)?.version as number;

beforeAll(async () => {
  table = await freshTable("repository");
});
afterAll(async () => {
  await table.drop();
});

describe("create", () => {
  it("stores the largest post the rules allow: 100 emoji and 300,000 bytes of content", async () => {
    const post = await repo().create({ title: "😀".repeat(100), content: "😀".repeat(75_000) });
    expect(await repo().get(post.id)).toEqual(post);
  });
});

describe("update", () => {
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

describe("a post's version, which the API never shows", () => {
  it("starts at the creation time's version and grows by one per update", async () => {
    const before = firstVersion();
    const post = await repo().create({ title: "t", content: "c" });
    const created = await storedVersion(post.id);
    expect(created).toBeGreaterThanOrEqual(before);
    expect(created).toBeLessThanOrEqual(firstVersion());
    expect(Object.keys(post).sort()).toEqual(POST_KEYS);
    expect(Object.keys((await repo().get(post.id)) ?? {}).sort()).toEqual(POST_KEYS);
    expect(Object.keys(await repo().update(post.id, { title: "u" })).sort()).toEqual(POST_KEYS);
    await repo().update(post.id, {});
    expect(await storedVersion(post.id)).toBe(created + 2);
    // An Idempotency-Key create sets it too.
    const once = await repo().createOnce(
      { title: "t", content: "c" },
      { key: "k", fingerprint: "f" },
    );
    expect(await storedVersion(once.id)).toBeGreaterThanOrEqual(before);
  });

  it("of an id reused after a delete starts above every version the deleted post had", async () => {
    await repo().create({ id: 777, title: "first", content: "c" });
    for (let i = 0; i < 5; i++) await repo().update(777, { content: String(i) });
    const last = await storedVersion(777);
    await repo().delete(777);
    await repo().create({ id: 777, title: "second", content: "c" });
    // The delete's event carries last + 1 (lib/events): the new post must be above it.
    expect(await storedVersion(777)).toBeGreaterThan(last + 1);
  });
});

describe("a table larger than one 1 MB Scan page", () => {
  it("lists in full", async () => {
    const big = await freshTable("big");
    try {
      const content = "x".repeat(10_000);
      const count = 250; // ~2.5 MB: at least three Scan pages
      for (let i = 0; i < count; i += 25) {
        await Promise.all(
          Array.from({ length: 25 }, (_, j) =>
            big.repository.create({ title: `p${i + j}`, content }),
          ),
        );
      }
      const scan = new ScanCommand({ TableName: big.tableName });
      // The table really spans several pages.
      expect((await big.documentClient.send(scan)).LastEvaluatedKey).toBeDefined();
      const posts = listed(await big.repository.listJson());
      expect(posts.map((post) => post.id)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    } finally {
      await big.drop();
    }
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
