// Integration: a list after k writes reads the change marker and the k changed posts, nothing else;
// a write pays one write unit more for it, however long the table's history; and a write that
// fails halfway is listed within the documented bound. Units as DynamoDB Local reports them.
import { GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StorageCounts } from "../../lib/storage/counts.js";
import { metered } from "../../lib/storage/capacity.js";
import {
  ChangeMarker,
  MARKER_SHARDS,
  RING_SLOTS,
  markerId,
} from "../../lib/storage/change-marker.js";
import { DynamoPostRepository } from "../../lib/storage/dynamo-repository.js";
import { Sender } from "../../lib/storage/sender.js";
import { type PostsTable, freshTable } from "../helpers/db.js";
import { invoke } from "../helpers/events.js";
import { handlersOver, recordingLogger } from "../helpers/handlers.js";

let table: PostsTable;
const stops: (() => void)[] = [];

beforeAll(async () => {
  table = await freshTable("list-changes");
});
afterAll(async () => {
  for (const stop of stops) stop();
  await table.drop();
});

/** Another instance on the table, with its handlers writing their lines to `lines`. */
function instance(options: { listMaxAgeMs?: number; unrecordedGraceMs?: number } = {}) {
  const { client } = table.connect();
  stops.push(() => client.destroy());
  const repository = new DynamoPostRepository(client, table.tableName, {
    idempotencyTableName: table.idempotencyTableName,
    ...options,
  });
  const { logger, lines } = recordingLogger();
  const api = handlersOver(repository, logger);
  /** The last request's log line. */
  const last = () => (lines.at(-1)?.fields ?? {}) as Record<string, number | undefined>;
  const list = async () => {
    const answer = await invoke(api.list, { method: "GET" });
    expect(answer.status).toBe(200);
    return { posts: answer.body as { id: number; title: string }[], line: last() };
  };
  return { client, repository, api, last, list };
}

const kilobytes = (n: number) => "x".repeat(n * 1024 - 200);
/** Read units of a consistent read of an item of `bytes`: one per 4 KB or part of it. */
const readUnits = (bytes: number) => Math.ceil(bytes / 4096);

describe("a list after k writes", () => {
  it("reads the marker and the changed posts: marker + Σ⌈s/4⌉ read units, no Scan", async () => {
    const [reader, writer] = [instance(), instance()];
    for (let i = 0; i < 20; i++) {
      await invoke(writer.api.create, {
        method: "POST",
        body: { title: `seed ${i}`, content: "c" },
      });
    }
    expect((await reader.list()).line.ListScanned).toBe(1);
    const unchanged = (await reader.list()).line;
    expect(unchanged).toMatchObject({ ListFromMemory: 1 });
    const markerUnits = unchanged.ReadUnits as number;
    // One per shard (DynamoDB Local charges nothing for a shard no write has made yet; AWS does).
    expect(markerUnits).toBeGreaterThan(0);
    expect(markerUnits).toBeLessThanOrEqual(MARKER_SHARDS);
    for (const k of [1, 5, 40]) {
      const sizes: number[] = [];
      for (let i = 0; i < k; i++) {
        const content = kilobytes(1 + (i % 9));
        const made = await invoke(writer.api.create, {
          method: "POST",
          body: { title: `k${k}-${i}`, content },
        });
        expect(made.status).toBe(201);
        sizes.push(Buffer.byteLength(JSON.stringify(made.body)));
      }
      const { posts, line } = await reader.list();
      expect(line).toMatchObject({ ListPatched: 1 });
      expect(line.ListScanned).toBeUndefined();
      const target = markerUnits + sizes.reduce((sum, s) => sum + readUnits(s), 0) + 2;
      expect(line.ReadUnits).toBeLessThanOrEqual(target);
      expect(line.ReadUnits).toBeGreaterThan(markerUnits);
      expect(posts.filter((p) => p.title.startsWith(`k${k}-`))).toHaveLength(k);
    }
  });

  it("is byte-identical to a fresh instance's Scan after creates, updates and deletes", async () => {
    const [reader, writer] = [instance(), instance()];
    await reader.list();
    const made = await invoke(writer.api.create, {
      method: "POST",
      body: { title: "a", content: "c" },
    });
    const id = (made.body as { id: number }).id;
    await invoke(writer.api.create, {
      method: "POST",
      body: { id: id + 1000, title: "b", content: "c" },
    });
    await invoke(writer.api.update, { method: "PUT", postId: id, body: { title: "a2" } });
    await invoke(writer.api.delete, { method: "DELETE", postId: id + 1000 });
    const patched = await invoke(reader.api.list, { method: "GET" });
    expect(reader.last()).toMatchObject({ ListPatched: 1 });
    const fresh = await invoke(instance().api.list, { method: "GET" });
    expect(patched).toEqual(fresh);
  });

  it("scans when one shard moved more than its ring holds since the kept list", async () => {
    const [reader, writer] = [instance(), instance()];
    await reader.list();
    const marker = new ChangeMarker(new Sender(writer.client, []), table.tableName, 8, () => 3);
    const made = await invoke(writer.api.create, {
      method: "POST",
      body: { title: "far", content: "c" },
    });
    for (let i = 0; i <= RING_SLOTS; i++) await marker.advance((made.body as { id: number }).id);
    const { posts, line } = await reader.list();
    expect(line).toMatchObject({ ListScanned: 1 });
    expect(posts.map((p) => p.title)).toContain("far");
  });
});

describe("a write's bookkeeping", () => {
  it("costs one write unit more than the marker's ADD alone, at the ring's cap too", async () => {
    const writer = instance();
    const sender = new Sender(writer.client, []);
    const shard = 5;
    const marker = new ChangeMarker(sender, table.tableName, MARKER_SHARDS, () => shard);
    // A long history: counts near the largest the slots' fixed width holds, the largest ids.
    const key = { id: markerId(shard) };
    const high = 36 ** 8 - 10 * RING_SLOTS;
    await writer.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key,
        UpdateExpression: "SET changes = :high",
        ExpressionAttributeValues: { ":high": high },
      }),
    );
    const costs: number[] = [];
    for (let i = 0; i < 3 * RING_SLOTS; i++) {
      const counts: StorageCounts = {};
      await metered(counts, () => marker.advance(Number.MAX_SAFE_INTEGER - i));
      costs.push(counts.WriteUnits ?? 0);
    }
    // Today's bookkeeping is one ADD of 1 write unit; the slot's SET is the one more.
    expect(new Set(costs)).toEqual(new Set([2]));
    const { Item } = await writer.client.send(
      new GetCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }),
    );
    const names = Object.keys(Item ?? {});
    expect(names).toHaveLength(2 + RING_SLOTS);
    const size = names.reduce((sum, name) => sum + name.length + String(Item![name]).length, 0);
    expect(size).toBeLessThan(1024);
    expect(Item?.changes).toBe(high + 3 * RING_SLOTS);
  });

  it("adds at most 1 to a create's, update's and delete's write units", async () => {
    const writer = instance();
    const content = kilobytes(3);
    const made = await invoke(writer.api.create, { method: "POST", body: { title: "w", content } });
    const created = writer.last().WriteUnits as number;
    const post = made.body as { id: number };
    // Today's create: the id counter's ADD, the post's put, the marker's ADD.
    const { ConsumedCapacity } = await writer.client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...(await table.posts()).find((p) => p.id === post.id), id: 10 ** 9 },
        ReturnConsumedCapacity: "TOTAL",
      }),
    );
    const today = 1 + (ConsumedCapacity?.CapacityUnits ?? 0) + 1;
    expect(created).toBeLessThanOrEqual(today + 1);
    expect(created).toBeGreaterThanOrEqual(today);
    await invoke(writer.api.update, { method: "PUT", postId: post.id, body: { title: "w2" } });
    expect(writer.last().WriteUnits).toBeLessThanOrEqual(today - 1 + 1);
    await invoke(writer.api.delete, { method: "DELETE", postId: post.id });
    expect(writer.last().WriteUnits).toBeLessThanOrEqual(today - 1 + 1);
  });
});

describe("a write that fails halfway", () => {
  /** A writer whose marker calls that match `failing` fail; every other call reaches DynamoDB Local. */
  function brokenWriter(failing: (expression: string) => boolean) {
    const writer = instance();
    const real = table.documentClient;
    const mock = mockClient(writer.client);
    mock.on(GetCommand).callsFake((input) => real.send(new GetCommand(input)));
    mock.on(PutCommand).callsFake((input) => real.send(new PutCommand(input)));
    mock.on(UpdateCommand).callsFake((input: UpdateCommand["input"]) => {
      if (Number(input.Key?.id) < 0 && failing(String(input.UpdateExpression))) {
        const error = Object.assign(new Error("Internal server error"), {
          name: "InternalServerError",
          $fault: "server",
        });
        return Promise.reject(error);
      }
      return real.send(new UpdateCommand(input));
    });
    stops.push(() => mock.restore());
    return writer;
  }

  it("post stored and counted, its slot not: 500, then listed within the grace", async () => {
    const grace = 400;
    const reader = instance({ unrecordedGraceMs: grace });
    const healthy = instance();
    const broken = brokenWriter((expression) => expression.startsWith("SET"));
    await reader.list();
    const answer = await invoke(broken.api.create, {
      method: "POST",
      body: { title: "unrecorded", content: "c" },
    });
    expect(answer).toMatchObject({ status: 500 });
    expect((await table.posts()).some((p) => p.title === "unrecorded")).toBe(true);
    // A write acknowledged after it is listed at once: the list patches past the gap.
    await invoke(healthy.api.create, { method: "POST", body: { title: "after", content: "c" } });
    const held = await reader.list();
    expect(held.posts.map((p) => p.title)).toContain("after");
    const started = Date.now();
    let listed = held;
    while (!listed.posts.some((p) => p.title === "unrecorded")) {
      expect(Date.now() - started).toBeLessThan(grace + 1_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      listed = await reader.list();
    }
    expect(listed.line).toMatchObject({ ListScanned: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(grace - 100);
    // Then it is at the counts again: the next list is from memory.
    expect((await reader.list()).line).toMatchObject({ ListFromMemory: 1 });
  });

  it("post stored, not counted: 500, then listed within the max age", async () => {
    const maxAge = 400;
    const reader = instance({ listMaxAgeMs: maxAge });
    const broken = brokenWriter((expression) => expression.startsWith("ADD"));
    await reader.list();
    const answer = await invoke(broken.api.create, {
      method: "POST",
      body: { title: "uncounted", content: "c" },
    });
    expect(answer).toMatchObject({ status: 500 });
    expect((await reader.list()).posts.map((p) => p.title)).not.toContain("uncounted");
    await new Promise((resolve) => setTimeout(resolve, maxAge + 50));
    const listed = await reader.list();
    expect(listed.line).toMatchObject({ ListScanned: 1 });
    expect(listed.posts.map((p) => p.title)).toContain("uncounted");
  });
});
