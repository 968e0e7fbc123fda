// Unit: the change marker's reads and writes as DynamoDB sees them. The client is mocked because
// DynamoDB Local never leaves keys unprocessed, and the backoff between reads is timed with fake
// timers; the marker's guarantees on a real table are in tests/integration/list-cache.test.ts.
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { BatchGetCommand, DynamoDBDocumentClient, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  ChangeMarker,
  MARKER_SHARDS,
  RING_SLOTS,
  changesSince,
  markerId,
  slotEntry,
} from "../../../lib/storage/change-marker.js";
import { StorageError } from "../../../lib/posts/errors.js";
import { Sender } from "../../../lib/storage/sender.js";

const TABLE = "posts";
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: "us-east-1" }));
const mock = mockClient(client);
const sender = new Sender(client, [TABLE]);
const shardItem = (shard: number, changes: number) => ({ id: markerId(shard), changes });
const countsOf = async (marker: ChangeMarker, signal?: AbortSignal) =>
  (await marker.read(signal)).map((shard) => shard.count).join(".");
const allKeys = () =>
  Array.from({ length: MARKER_SHARDS }, (_, shard) => ({ id: markerId(shard) }));

beforeEach(() => mock.reset());
afterEach(() => vi.useRealTimers());
afterAll(() => mock.restore());

describe("ChangeMarker.advance", () => {
  it("adds one to a shard picked at random, spreading writes over all of them", async () => {
    mock.on(UpdateCommand).resolves({ Attributes: { changes: 1 } });
    const marker = new ChangeMarker(sender, TABLE);
    for (let i = 0; i < 200; i++) await marker.advance(7);
    const ids = mock.commandCalls(UpdateCommand).map((call) => call.args[0].input.Key?.id);
    expect(new Set(ids)).toEqual(new Set([-1, -2, -3, -4, -5, -6, -7, -8]));
    expect(mock.commandCalls(UpdateCommand)[0]!.args[0].input).toMatchObject({
      TableName: TABLE,
      UpdateExpression: "ADD #changes :one",
      ExpressionAttributeValues: { ":one": 1 },
      ReturnValues: "UPDATED_NEW",
    });
  });

  it("then records the post's id in the slot its write's number names, on the same shard", async () => {
    mock
      .on(UpdateCommand)
      .resolvesOnce({ Attributes: { changes: RING_SLOTS + 3 } })
      .resolves({});
    await new ChangeMarker(sender, TABLE, MARKER_SHARDS, () => 2).advance(1234);
    const [, record] = mock.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(record).toEqual({
      TableName: TABLE,
      Key: { id: markerId(2) },
      UpdateExpression: "SET #slot = :entry",
      ConditionExpression: "attribute_not_exists(#slot) OR #slot < :entry",
      ExpressionAttributeNames: { "#slot": "r3" },
      ExpressionAttributeValues: { ":entry": slotEntry(RING_SLOTS + 3, 1234) },
    });
  });

  it("leaves a slot a later lap holds, and fails when the slot cannot be written", async () => {
    const refused = Object.assign(new Error("no"), { name: "ConditionalCheckFailedException" });
    mock
      .on(UpdateCommand)
      .resolvesOnce({ Attributes: { changes: 5 } })
      .rejectsOnce(refused);
    await expect(new ChangeMarker(sender, TABLE).advance(1)).resolves.toBeUndefined();
    mock.reset();
    const broken = Object.assign(new Error("down"), { name: "InternalServerError" });
    mock
      .on(UpdateCommand)
      .resolvesOnce({ Attributes: { changes: 6 } })
      .rejectsOnce(broken);
    await expect(new ChangeMarker(sender, TABLE).advance(1)).rejects.toThrow(StorageError);
  });
});

describe("slot entries", () => {
  it("order as text as their writes' numbers do, at any length of id", () => {
    const numbers = [1, 35, 36, 1_295, 1_296, 36 ** 7, 36 ** 8 - 1];
    const entries = numbers.map((n, i) => slotEntry(n, i % 2 ? Number.MAX_SAFE_INTEGER : 1));
    expect([...entries].sort()).toEqual(entries);
  });
});

describe("changesSince", () => {
  const shard = (count: number, written: [number, number][] = []) => ({
    count,
    written: new Map(written),
  });

  // [write number, post id] pairs; a position past a slot not yet set stops before it.
  it.each([
    [
      "every write since",
      shard(3, [
        [1, 10],
        [2, 11],
        [3, 10],
      ]),
      1,
      { ids: [11, 10], missing: [], through: 3 },
    ],
    ["no write", shard(3), 3, { ids: [], missing: [], through: 3 }],
    [
      "a slot not set yet",
      shard(4, [
        [2, 20],
        [4, 40],
      ]),
      1,
      { ids: [20, 40], missing: [3], through: 2 },
    ],
    ["a full ring", shard(RING_SLOTS), 0, { ids: [], missing: expect.any(Array), through: 0 }],
    // The ring has lapped the position, or the count went back: it cannot say.
    ["a lapped ring", shard(RING_SLOTS + 1), 0, undefined],
    ["a count gone back", shard(2), 3, undefined],
  ])("after %s", (_label, since, position, expected) => {
    expect(changesSince(since, position)).toEqual(expected);
  });
});

describe("ChangeMarker.read", () => {
  it("shows each shard's count in order, so [1, 11] and [11, 1] differ", async () => {
    const marker = new ChangeMarker(sender, TABLE, 2);
    mock
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { [TABLE]: [shardItem(0, 1), shardItem(1, 11)] } })
      .resolvesOnce({ Responses: { [TABLE]: [shardItem(1, 1), shardItem(0, 11)] } });
    expect(await countsOf(marker)).toBe("1.11");
    expect(await countsOf(marker)).toBe("11.1");
  });

  it("counts a shard never written, or an answer without the table, as 0", async () => {
    mock.on(BatchGetCommand).resolves({});
    expect(await countsOf(new ChangeMarker(sender, TABLE, 3))).toBe("0.0.0");
  });

  it("asks again for unprocessed keys only, after 50 ms, then 100 ms", async () => {
    vi.useFakeTimers();
    const unprocessed = [{ id: markerId(1) }];
    mock
      .on(BatchGetCommand)
      .resolvesOnce({
        Responses: { [TABLE]: [shardItem(0, 4)] },
        UnprocessedKeys: { [TABLE]: { Keys: unprocessed } },
      })
      .resolvesOnce({ UnprocessedKeys: { [TABLE]: { Keys: unprocessed } } })
      .resolvesOnce({ Responses: { [TABLE]: [shardItem(1, 9)] } });
    const reading = countsOf(new ChangeMarker(sender, TABLE, 2));
    const calls = () => mock.commandCalls(BatchGetCommand).length;
    await vi.advanceTimersByTimeAsync(0);
    expect(calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(49);
    expect(calls()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls()).toBe(2);
    await vi.advanceTimersByTimeAsync(99);
    expect(calls()).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(await reading).toBe("4.9");
    const requests = mock.commandCalls(BatchGetCommand).map((call) => call.args[0].input);
    expect(requests[0]?.RequestItems?.[TABLE]).toEqual({
      Keys: allKeys().slice(0, 2),
      ConsistentRead: true,
    });
    expect(requests[2]?.RequestItems?.[TABLE]).toEqual({ Keys: unprocessed, ConsistentRead: true });
  });

  it("fails as throttled when keys stay unprocessed five times", async () => {
    mock.on(BatchGetCommand).resolves({ UnprocessedKeys: { [TABLE]: { Keys: [{ id: -1 }] } } });
    await expect(new ChangeMarker(sender, TABLE, 1).read()).rejects.toEqual(
      new StorageError("ProvisionedThroughputExceededException: change marker unread"),
    );
    expect(mock.commandCalls(BatchGetCommand)).toHaveLength(5);
  });

  it("stops waiting between reads when the deadline passes, with the deadline's reason", async () => {
    mock.on(BatchGetCommand).resolves({ UnprocessedKeys: { [TABLE]: { Keys: [{ id: -1 }] } } });
    const deadline = new AbortController();
    const reason = new Error("deadline");
    const reading = new ChangeMarker(sender, TABLE, 1).read(deadline.signal);
    setTimeout(() => deadline.abort(reason), 10);
    await expect(reading).rejects.toBe(reason);
    expect(mock.commandCalls(BatchGetCommand)).toHaveLength(1);
  });

  it("does not wait at all once the deadline has passed", async () => {
    const deadline = new AbortController();
    const reason = new Error("deadline");
    mock.on(BatchGetCommand).callsFake(() => {
      deadline.abort(reason);
      return { UnprocessedKeys: { [TABLE]: { Keys: [{ id: -1 }] } } };
    });
    await expect(new ChangeMarker(sender, TABLE, 1).read(deadline.signal)).rejects.toBe(reason);
    expect(mock.commandCalls(BatchGetCommand)).toHaveLength(1);
  });
});
