// Integration: the list cache on DynamoDB Local: what a list reads and a write pays (in units as
// DynamoDB Local reports them), and how soon a write that fails halfway is listed.
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
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
  table = await freshTable("list-cache");
});
afterAll(async () => {
  for (const stop of stops) stop();
  await table.drop();
});

/** Another instance on the table: its own client, repository and list cache, counting its calls. */
function instance(options: { listMaxAgeMs?: number; unrecordedGraceMs?: number } = {}) {
  const { client } = table.connect();
  stops.push(() => client.destroy());
  const repository = new DynamoPostRepository(client, table.tableName, {
    idempotencyTableName: table.idempotencyTableName,
    ...options,
  });
  const calls: string[] = [];
  client.middlewareStack.add(
    (next, context) => (args) => {
      calls.push(String(context.commandName));
      return next(args);
    },
    { step: "initialize", name: "countCalls" },
  );
  const { logger, lines } = recordingLogger();
  const api = handlersOver(repository, logger);
  /** A list, its posts' titles and its request line. */
  const list = async () => {
    const answer = await invoke(api.list, { method: "GET" });
    expect(answer.status).toBe(200);
    const titles = (answer.body as { title: string }[]).map((post) => post.title);
    const line = (lines.at(-1)?.fields ?? {}) as Record<string, number | undefined>;
    return { answer, titles, line };
  };
  const create = (title: string, content = "c", headers: Record<string, string> = {}) =>
    invoke(api.create, { method: "POST", body: { title, content }, headers });
  return { client, api, calls, list, create };
}

/** An instance whose marker updates that match `failing` fail; every other call reaches DynamoDB Local. */
function brokenWriter(failing: (expression: string) => boolean) {
  const writer = instance();
  const real = table.documentClient;
  const mock = mockClient(writer.client);
  stops.push(() => mock.restore());
  for (const Command of [GetCommand, PutCommand, DeleteCommand, TransactWriteCommand]) {
    const Forwarded = Command as typeof GetCommand;
    mock.on(Forwarded).callsFake((input) => real.send(new Forwarded(input)));
  }
  mock.on(UpdateCommand).callsFake((input: UpdateCommand["input"]) => {
    if (Number(input.Key?.id) < 0 && failing(String(input.UpdateExpression))) {
      const error = { name: "InternalServerError", $fault: "server" };
      return Promise.reject(Object.assign(new Error("Internal server error"), error));
    }
    return real.send(new UpdateCommand(input));
  });
  return writer;
}

const kilobytes = (n: number) => "x".repeat(n * 1024 - 200);
/** Read units of a consistent read of an item of `bytes`: one per 4 KB or part of it. */
const readUnits = (bytes: number) => Math.ceil(bytes / 4096);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a list", () => {
  it("costs one BatchGetItem and no Scan while nothing changed, 304 included", async () => {
    const reader = instance();
    await reader.create("warm");
    const first = (await reader.list()).answer;
    reader.calls.length = 0;
    expect((await reader.list()).answer).toEqual(first);
    const headers = { "if-none-match": String(first.headers.etag) };
    expect((await invoke(reader.api.list, { method: "GET", headers })).status).toBe(304);
    expect(reader.calls).toEqual(["BatchGetItemCommand", "BatchGetItemCommand"]);
  });

  it("after a write on another instance reads that post, not the table, and is what a fresh instance's Scan answers", async () => {
    const [reader, writer] = [instance(), instance()];
    await reader.list();
    for (const write of [
      () =>
        invoke(writer.api.create, { method: "POST", body: { id: 9_001, title: "a", content: "" } }),
      () => invoke(writer.api.update, { method: "PUT", postId: 9_001, body: { title: "renamed" } }),
      () => invoke(writer.api.delete, { method: "DELETE", postId: 9_001 }),
    ]) {
      expect((await write()).status).toBeLessThan(300);
      reader.calls.length = 0;
      const { answer, line } = await reader.list();
      // The marker, then the post written: never the table.
      expect(reader.calls).toEqual(["BatchGetItemCommand", "BatchGetItemCommand"]);
      expect(line).toMatchObject({ ListPatched: 1 });
      expect(answer).toEqual((await instance().list()).answer);
    }
  });

  it("keeps a body the marker moved during, and reads the post written meanwhile next", async () => {
    const [reader, writer] = [instance(), instance()];
    let wrote = false;
    // A write lands while the reader's Scan is under way (before its first page is read).
    reader.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === "ScanCommand" && !wrote) {
          wrote = true;
          await writer.create("during the scan");
        }
        return next(args);
      },
      { step: "initialize", name: "writeDuringScan" },
    );
    await reader.list();
    reader.calls.length = 0;
    expect((await reader.list()).titles).toContain("during the scan");
    expect(reader.calls).toEqual(["BatchGetItemCommand", "BatchGetItemCommand"]);
    reader.calls.length = 0;
    await reader.list();
    expect(reader.calls).toEqual(["BatchGetItemCommand"]);
  });

  it("fails with a 500, never a partial list, when the marker stays unread or a later Scan page fails", async () => {
    const failure = { name: "InternalServerError", $fault: "server" };
    const post = { id: 1, title: "t", content: "c", created_at: null, updated_at: null };
    for (const unread of [true, false]) {
      const reader = instance();
      const mock = mockClient(reader.client);
      stops.push(() => mock.restore());
      const real = table.documentClient;
      if (unread) {
        const keys = { [table.tableName]: { Keys: [{ id: markerId(0) }] } };
        mock.on(BatchGetCommand).resolves({ Responses: {}, UnprocessedKeys: keys });
      } else {
        mock.on(BatchGetCommand).callsFake((input) => real.send(new BatchGetCommand(input)));
      }
      mock
        .on(ScanCommand)
        .resolvesOnce({ Items: [post], LastEvaluatedKey: { id: 1 } })
        .rejects(Object.assign(new Error("Internal server error"), failure));
      const refused = await invoke(reader.api.list, { method: "GET" });
      expect(refused.status).toBe(500);
      const detail = (refused.body as { detail: string }).detail;
      if (unread) expect(detail).toContain("change marker unread");
    }
  });

  it("after k writes reads the marker and the changed posts: marker + Σ⌈s/4⌉ read units, no Scan", async () => {
    const [reader, writer] = [instance(), instance()];
    for (let i = 0; i < 20; i++) await writer.create(`seed ${i}`);
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
        const made = await writer.create(`k${k}-${i}`, kilobytes(1 + (i % 9)));
        expect(made.status).toBe(201);
        sizes.push(Buffer.byteLength(JSON.stringify(made.body)));
      }
      const { titles, line } = await reader.list();
      expect(line).toMatchObject({ ListPatched: 1 });
      expect(line.ListScanned).toBeUndefined();
      const target = markerUnits + sizes.reduce((sum, s) => sum + readUnits(s), 0) + 2;
      expect(line.ReadUnits).toBeLessThanOrEqual(target);
      expect(line.ReadUnits).toBeGreaterThan(markerUnits);
      expect(titles.filter((title) => title.startsWith(`k${k}-`))).toHaveLength(k);
    }
  });

  it("scans when one shard moved more than its ring holds since the kept list", async () => {
    const [reader, writer] = [instance(), instance()];
    await reader.list();
    const marker = new ChangeMarker(new Sender(writer.client, []), table.tableName, 8, () => 3);
    const made = await writer.create("far");
    for (let i = 0; i <= RING_SLOTS; i++) await marker.advance((made.body as { id: number }).id);
    const { titles, line } = await reader.list();
    expect(line).toMatchObject({ ListScanned: 1 });
    expect(titles).toContain("far");
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
    const set = {
      UpdateExpression: "SET changes = :high",
      ExpressionAttributeValues: { ":high": high },
    };
    await writer.client.send(new UpdateCommand({ TableName: table.tableName, Key: key, ...set }));
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
});

describe("a write that fails halfway", () => {
  it("post stored, not counted: 500, served stale until the cache's max age, then listed", async () => {
    const maxAge = 400;
    const healthy = instance();
    const [cached, shortLived] = [instance(), instance({ listMaxAgeMs: maxAge })];
    const broken = brokenWriter((expression) => expression.startsWith("ADD"));
    await cached.list();
    await shortLived.list();
    expect((await broken.create("uncounted")).status).toBe(500);
    // The post landed, but no acknowledged write says so: the window this cache accepts.
    expect((await table.posts()).some((post) => post.title === "uncounted")).toBe(true);
    expect((await cached.list()).titles).not.toContain("uncounted");
    // A later acknowledged write is listed at once, but names only its own post.
    await healthy.create("acknowledged");
    const patched = (await cached.list()).titles;
    expect(patched).toContain("acknowledged");
    expect(patched).not.toContain("uncounted");
    await sleep(maxAge + 50);
    const listed = await shortLived.list();
    expect(listed.line).toMatchObject({ ListScanned: 1 });
    expect(listed.titles).toEqual(expect.arrayContaining(["uncounted", "acknowledged"]));
  });

  it("post stored and counted, its slot not: 500, then listed within the grace", async () => {
    const grace = 400;
    const reader = instance({ unrecordedGraceMs: grace });
    const healthy = instance();
    const broken = brokenWriter((expression) => expression.startsWith("SET"));
    await reader.list();
    expect((await broken.create("unrecorded")).status).toBe(500);
    expect((await table.posts()).some((post) => post.title === "unrecorded")).toBe(true);
    // A write acknowledged after it is listed at once: the list patches past the gap.
    await healthy.create("after");
    const held = await reader.list();
    expect(held.titles).toContain("after");
    const started = Date.now();
    let listed = held;
    while (!listed.titles.includes("unrecorded")) {
      expect(Date.now() - started).toBeLessThan(grace + 1_000);
      await sleep(50);
      listed = await reader.list();
    }
    expect(listed.line).toMatchObject({ ListScanned: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(grace - 100);
    // Then it is at the counts again: the next list is from memory.
    expect((await reader.list()).line).toMatchObject({ ListFromMemory: 1 });
  });

  it("on an idempotent create, is healed by the retry that replays it", async () => {
    const [healthy, cached] = [instance(), instance()];
    const broken = brokenWriter(() => true);
    const headers = { "Idempotency-Key": `marker-${Date.now()}` };
    await cached.list();
    expect((await broken.create("retried", "c", headers)).status).toBe(500);
    expect((await cached.list()).titles).not.toContain("retried");
    expect((await healthy.create("retried", "c", headers)).status).toBe(201);
    expect((await cached.list()).titles).toContain("retried");
  });
});
