// Integration: creates with an Idempotency-Key against DynamoDB Local: concurrent retries, the
// key's lifetime, and a claim left by a request that died. Replays and the 422 of another body are
// the fuzz suite's (tests/fuzz), the refusals' texts the unit tests'.
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
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
const post = (body: unknown, key: string) =>
  invoke(create, { method: "POST", body, headers: { "Idempotency-Key": key } });

beforeAll(async () => {
  table = await freshTable("idempotency");
  create = handlersOver(table.repository).create;
});
afterAll(async () => {
  await table.drop();
});

/** Writes a key's record straight to the keys table. */
const putRecord = (item: Record<string, unknown>) =>
  table.documentClient.send(new PutCommand({ TableName: table.idempotencyTableName, Item: item }));

/** Leaves a claim as a Lambda that timed out mid-request would leave it. */
const leavePendingClaim = (key: string, body: Record<string, unknown>, leaseUntil: number) =>
  putRecord({
    key,
    fingerprint: fingerprintPayload(body),
    owner: "a request that died",
    state: "pending",
    lease_until: leaseUntil,
    expires_at: Math.floor(Date.now() / 1000) + 86_400,
  });

describe("Idempotency-Key on create", () => {
  it("creates exactly one post under 20 concurrent retries of one key", async () => {
    const key = newKey();
    const before = (await table.posts()).length;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => post({ title: "race", content: "c" }, key)),
    );
    expect(new Set(responses.map((r) => r.status))).toEqual(new Set([201]));
    expect(new Set(responses.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect((await table.posts()).length).toBe(before + 1);
  });

  it("remembers a key for 24 hours, and treats an expired one as new", async () => {
    const key = newKey();
    const started = Math.floor(Date.now() / 1000);
    await post({ title: "ttl", content: "c" }, key);
    const record = await table.documentClient.send(
      new GetCommand({ TableName: table.idempotencyTableName, Key: { key } }),
    );
    const expires = record.Item?.expires_at as number;
    expect(expires - started).toBeGreaterThanOrEqual(86_400 - 1);
    expect(expires - started).toBeLessThanOrEqual(86_400 + 5);

    const expired = newKey();
    const done = { fingerprint: "old", owner: "x", state: "done", status: 201 };
    await putRecord({ key: expired, ...done, expires_at: 1 });
    expect((await post({ title: "fresh", content: "c" }, expired)).status).toBe(201);
  });

  it("holds a fresh claim for its lease: another request with the same body cannot take it", async () => {
    const name = table.idempotencyTableName;
    const keysTable = new IdempotencyKeyTable(new Sender(table.documentClient, [name]), name);
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
    const before = (await table.posts()).length;
    const retried = await post(body, key);
    expect(retried.status).toBe(201);
    expect((await table.posts()).length).toBe(before + 1);
    expect(await post(body, key)).toEqual(retried);
  });

  it("answers 409 in progress when the first request holds the key past the wait", async () => {
    const key = newKey();
    const body = { title: "slow", content: "c" };
    await leavePendingClaim(key, body, Date.now() + 60_000);
    const before = await table.items();
    expect(await post(body, key)).toMatchObject({
      status: 409,
      body: { detail: expect.any(String) },
      headers: { "retry-after": "1" },
    });
    expect(await table.items()).toEqual(before);
  });
});
