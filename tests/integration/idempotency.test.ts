// Integration: retried creates with an Idempotency-Key against DynamoDB Local.
import { BatchWriteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiHandler } from "../../lib/http/handler.js";
import { fingerprintPayload } from "../../lib/posts/idempotency-key.js";
import { Sender } from "../../lib/storage/sender.js";
import { IdempotencyKeyTable } from "../../lib/storage/idempotency-key-table.js";
import { type PostsTable, freshTable } from "../helpers/db.js";
import { invoke } from "../helpers/events.js";
import { handlersOver } from "../helpers/handlers.js";

let table: PostsTable;
let create: ApiHandler;
let keys = 0;
const newKey = () => `key-${Date.now()}-${++keys}`;
const post = (body: unknown, key?: string) =>
  invoke(create, {
    method: "POST",
    body,
    headers: key === undefined ? {} : { "Idempotency-Key": key },
  });
const posts = async () => (await table.items()).filter((item) => Number(item.id) > 0);
const counter = async () => (await table.items()).find((item) => item.id === 0)?.last_id;

beforeAll(async () => {
  table = await freshTable("idempotency");
  create = handlersOver(table.repository).create;
});
afterAll(async () => {
  await table.drop();
});

describe("Idempotency-Key on create", () => {
  it("replays the same post and status for the same key and body, without a second write", async () => {
    const key = newKey();
    const first = await post({ title: "once", content: "c" }, key);
    const before = { posts: await posts(), counter: await counter() };
    const again = await post({ content: "c", title: "once" }, key); // key order does not matter
    expect(first.status).toBe(201);
    expect(again).toEqual(first);
    expect(await posts()).toEqual(before.posts);
    expect(await counter()).toBe(before.counter);
  });

  it("answers 422 for the same key with a different body, and writes nothing", async () => {
    const key = newKey();
    await post({ title: "a", content: "c" }, key);
    const before = await table.items();
    const response = await post({ title: "b", content: "c" }, key);
    expect(response).toMatchObject({
      status: 422,
      body: { detail: "Idempotency-Key was already used with a different request body" },
    });
    expect(await table.items()).toEqual(before);
  });

  it("creates exactly one post under 20 concurrent retries of one key", async () => {
    const key = newKey();
    const before = (await posts()).length;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => post({ title: "race", content: "c" }, key)),
    );
    expect(new Set(responses.map((r) => r.status))).toEqual(new Set([201]));
    expect(new Set(responses.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect((await posts()).length).toBe(before + 1);
  });

  it("replays a 409 for a client-chosen id that was taken", async () => {
    await post({ id: 900, title: "taken", content: "c" });
    const key = newKey();
    const first = await post({ id: 900, title: "mine", content: "c" }, key);
    expect(first).toMatchObject({ status: 409, body: { detail: "Blog post #900 already exists" } });
    expect(await post({ id: 900, title: "mine", content: "c" }, key)).toEqual(first);
  });

  it("is independent between keys and leaves plain creates as the spec says", async () => {
    const a = await post({ title: "x", content: "c" }, newKey());
    const b = await post({ title: "x", content: "c" }, newKey());
    const c = await post({ title: "x", content: "c" });
    const d = await post({ title: "x", content: "c" });
    const ids = [a, b, c, d].map((r) => (r.body as { id: number }).id);
    expect(new Set(ids).size).toBe(4);
  });

  it("remembers a key for 24 hours", async () => {
    const key = newKey();
    const started = Math.floor(Date.now() / 1000);
    await post({ title: "ttl", content: "c" }, key);
    const record = await table.documentClient.send(
      new GetCommand({ TableName: table.idempotencyTableName, Key: { key } }),
    );
    const expires = record.Item?.expires_at as number;
    expect(expires - started).toBeGreaterThanOrEqual(86_400 - 1);
    expect(expires - started).toBeLessThanOrEqual(86_400 + 5);
  });

  it("treats an expired key as new", async () => {
    const key = newKey();
    await table.documentClient.send(
      new PutCommand({
        TableName: table.idempotencyTableName,
        Item: { key, fingerprint: "old", owner: "x", state: "done", status: 201, expires_at: 1 },
      }),
    );
    expect((await post({ title: "fresh", content: "c" }, key)).status).toBe(201);
  });

  /** Leaves a claim as a Lambda that timed out mid-request would leave it. */
  const leavePendingClaim = (key: string, body: Record<string, unknown>, leaseUntil: number) =>
    table.documentClient.send(
      new PutCommand({
        TableName: table.idempotencyTableName,
        Item: {
          key,
          fingerprint: fingerprintPayload(body),
          owner: "a request that died",
          state: "pending",
          lease_until: leaseUntil,
          expires_at: Math.floor(Date.now() / 1000) + 86_400,
        },
      }),
    );

  it("holds a fresh claim for its lease: another request with the same body cannot take it", async () => {
    const keysName = String(table.idempotencyTableName);
    const keysTable = new IdempotencyKeyTable(
      new Sender(table.documentClient, [keysName]),
      keysName,
    );
    const request = { key: newKey(), fingerprint: "same body" };
    expect(await keysTable.claim(request, "first")).toEqual({ claimed: true });
    // The refusal brings the record that holds the key, with no second read.
    expect(await keysTable.claim(request, "second")).toEqual({
      claimed: false,
      record: expect.objectContaining({ owner: "first", state: "pending" }),
    });
  });

  it("takes over a key whose first request died before writing", async () => {
    const key = newKey();
    const body = { title: "retry", content: "c" };
    await leavePendingClaim(key, body, Date.now() - 1);
    const before = (await posts()).length;
    const retried = await post(body, key);
    expect(retried.status).toBe(201);
    expect((await posts()).length).toBe(before + 1);
    expect(await post(body, key)).toEqual(retried);
  });

  it("answers 409 in progress when the first request holds the key past the wait", async () => {
    const key = newKey();
    const body = { title: "slow", content: "c" };
    await leavePendingClaim(key, body, Date.now() + 60_000);
    const before = await table.items();
    expect(await post(body, key)).toMatchObject({
      status: 409,
      body: { detail: "A request with this Idempotency-Key is still in progress; retry shortly" },
      headers: { "retry-after": "1" },
    });
    expect(await table.items()).toEqual(before);
  });

  it("skips a counter value a client-chosen id took, and answers 201", async () => {
    const next = Number(await counter()) + 1;
    const squatter = await post({ id: next, title: "squatter", content: "c" });
    expect(squatter.status).toBe(201);
    const key = newKey();
    const body = { title: "after the squatter", content: "c" };
    const created = await post(body, key);
    expect(created).toMatchObject({ status: 201, body: { title: "after the squatter" } });
    const id = (created.body as { id: number }).id;
    expect(id).toBeGreaterThan(next);
    expect((await posts()).find((item) => item.id === next)).toMatchObject({ title: "squatter" });
    expect((await posts()).filter((item) => item.title === "after the squatter")).toHaveLength(1);
    expect(await post(body, key)).toEqual(created);
  });

  it("skips a long run of client-chosen ids in a handful of calls", async () => {
    const first = Number(await counter()) + 1;
    const squatted = 200;
    // Written straight to the table, 25 an item batch: the counter knows none of them.
    for (let start = first; start < first + squatted; start += 25) {
      const puts = Array.from({ length: 25 }, (_, i) => ({
        PutRequest: { Item: { id: start + i, title: "squat", content: "", created_at: null } },
      }));
      const batch = new BatchWriteCommand({ RequestItems: { [table.tableName]: puts } });
      const { UnprocessedItems } = await table.documentClient.send(batch);
      expect(Object.keys(UnprocessedItems ?? {})).toEqual([]);
    }
    // Counts the calls that reach DynamoDB Local, by operation.
    const calls = new Map<string, number>();
    const wire = new NodeHttpHandler();
    const counting = {
      handle(request: { headers: Record<string, string> }) {
        const operation = String(request.headers["x-amz-target"]).split(".")[1] ?? "";
        calls.set(operation, (calls.get(operation) ?? 0) + 1);
        return wire.handle(request as Parameters<NodeHttpHandler["handle"]>[0]);
      },
      updateHttpClientConfig() {},
      httpHandlerConfigs: () => ({}),
    };
    const counted = table.connect({ requestHandler: counting });
    try {
      const response = await invoke(handlersOver(counted.repository).create, {
        method: "POST",
        body: { title: "past the squat", content: "c" },
        headers: { "Idempotency-Key": newKey() },
      });
      expect(response.status).toBe(201);
      expect((response.body as { id: number }).id).toBeGreaterThanOrEqual(first + squatted);
      // log2(200) is under 8: one counter call and one transaction per try, not 200 of each;
      // then the change marker's ADD and slot.
      expect(calls.get("UpdateItem")).toBeLessThanOrEqual(10);
      expect(calls.get("TransactWriteItems")).toBeLessThanOrEqual(9);
    } finally {
      counted.client.destroy();
      wire.destroy();
    }
  });

  it.each(["", "a b", "é", "x".repeat(256)])("rejects the key %j with 400", async (key) => {
    expect(await post({ title: "t", content: "c" }, key)).toMatchObject({
      status: 400,
      body: { detail: "Idempotency-Key must be 1 to 255 visible ASCII characters" },
    });
  });
});
