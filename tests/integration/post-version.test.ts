// Integration: every write of a post raises its stored version, which the API never shows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstVersion } from "../../lib/storage/post-version.js";
import { type PostsTable, freshTable } from "../helpers/db.js";

let table: PostsTable;
const repo = () => table.repository;
const storedVersion = async (id: number) =>
  (await table.items()).find((item) => item.id === id)?.version as number | undefined;

beforeAll(async () => {
  table = await freshTable("post-version");
});
afterAll(async () => {
  await table.drop();
});

describe("a post's version", () => {
  it("starts at the creation time's version and grows by one per update", async () => {
    const before = firstVersion();
    const post = await repo().create({ title: "t", content: "c" });
    const created = (await storedVersion(post.id)) as number;
    expect(created).toBeGreaterThanOrEqual(before);
    expect(created).toBeLessThanOrEqual(firstVersion());
    await repo().update(post.id, { title: "u" });
    await repo().update(post.id, {});
    expect(await storedVersion(post.id)).toBe(created + 2);
  });

  it("is never part of the post that create, get and update return", async () => {
    const post = await repo().create({ title: "t", content: "c" });
    const keys = ["content", "created_at", "id", "title", "updated_at"];
    expect(Object.keys(post).sort()).toEqual(keys);
    expect(Object.keys((await repo().get(post.id)) ?? {}).sort()).toEqual(keys);
    expect(Object.keys(await repo().update(post.id, { content: "d" })).sort()).toEqual(keys);
  });

  it("of an id reused after a delete starts above every version the deleted post had", async () => {
    await repo().create({ id: 777, title: "first", content: "c" });
    for (let i = 0; i < 5; i++) await repo().update(777, { content: String(i) });
    const last = (await storedVersion(777)) as number;
    await repo().delete(777);
    await repo().create({ id: 777, title: "second", content: "c" });
    // The delete's event carries last + 1 (lib/events): the new post must be above it.
    expect(await storedVersion(777)).toBeGreaterThan(last + 1);
  });

  it("is set on an Idempotency-Key create too", async () => {
    const request = { key: `k-${Date.now()}`, fingerprint: "f" };
    const post = await repo().createOnce({ title: "t", content: "c" }, request);
    expect(await storedVersion(post.id)).toBeGreaterThan(0);
  });
});
