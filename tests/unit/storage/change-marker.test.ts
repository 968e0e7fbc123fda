// Unit: the change marker's calls as DynamoDB sees them, over a mocked client (DynamoDB Local never
// leaves keys unprocessed); its guarantees on a real table are in tests/integration/list-cache.
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
const unprocessed = { UnprocessedKeys: { [TABLE]: { Keys: [{ id: markerId(0) }] } } };

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
    const advance = (name: string) => {
      mock.reset();
      mock
        .on(UpdateCommand)
        .resolvesOnce({ Attributes: { changes: 5 } })
        .rejects(Object.assign(new Error(name), { name }));
      return new ChangeMarker(sender, TABLE).advance(1);
    };
    await expect(advance("ConditionalCheckFailedException")).resolves.toBeUndefined();
    await expect(advance("InternalServerError")).rejects.toThrow(StorageError);
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
  /** A shard at `count` whose ring holds these post ids by write number. */
  const shard = (count: number, written: Record<number, number> = {}) => ({
    count,
    written: new Map(Object.entries(written).map(([n, id]) => [Number(n), id])),
  });

  const found = (ids: number[], missing: number[], through: number) => ({ ids, missing, through });

  // A slot not yet set stops the changes before it; a lapped ring or a count gone back cannot say.
  it.each([
    ["every write since", shard(3, { 1: 10, 2: 11, 3: 10 }), 1, found([11, 10], [], 3)],
    ["no write", shard(3), 3, found([], [], 3)],
    ["a slot not set yet", shard(4, { 2: 20, 4: 40 }), 1, found([20, 40], [3], 2)],
    ["a full ring", shard(RING_SLOTS), 0, found([], expect.any(Array), 0)],
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
    const shardKeys = [0, 1].map((shard) => ({ id: markerId(shard) }));
    const leftOver = { UnprocessedKeys: { [TABLE]: { Keys: shardKeys.slice(1) } } };
    mock
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { [TABLE]: [shardItem(0, 4)] }, ...leftOver })
      .resolvesOnce(leftOver)
      .resolvesOnce({ Responses: { [TABLE]: [shardItem(1, 9)] } });
    const reading = countsOf(new ChangeMarker(sender, TABLE, 2));
    const callsAfter = async (ms: number) => {
      await vi.advanceTimersByTimeAsync(ms);
      return mock.commandCalls(BatchGetCommand).length;
    };
    expect([await callsAfter(0), await callsAfter(49), await callsAfter(1)]).toEqual([1, 1, 2]);
    expect([await callsAfter(99), await callsAfter(1)]).toEqual([2, 3]);
    expect(await reading).toBe("4.9");
    const keys = mock.commandCalls(BatchGetCommand).map((call) => call.args[0].input.RequestItems);
    expect(keys[0]?.[TABLE]).toEqual({ Keys: shardKeys, ConsistentRead: true });
    expect(keys[2]?.[TABLE]).toEqual({ Keys: shardKeys.slice(1), ConsistentRead: true });
  });

  it("fails as throttled when keys stay unprocessed five times", async () => {
    mock.on(BatchGetCommand).resolves(unprocessed);
    await expect(new ChangeMarker(sender, TABLE, 1).read()).rejects.toEqual(
      new StorageError("ProvisionedThroughputExceededException: change marker unread"),
    );
    expect(mock.commandCalls(BatchGetCommand)).toHaveLength(5);
  });

  it("stops waiting between reads when the deadline passes, with the deadline's reason", async () => {
    mock.on(BatchGetCommand).resolves(unprocessed);
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
    mock.on(BatchGetCommand).callsFake(() => (deadline.abort(reason), unprocessed));
    await expect(new ChangeMarker(sender, TABLE, 1).read(deadline.signal)).rejects.toBe(reason);
    expect(mock.commandCalls(BatchGetCommand)).toHaveLength(1);
  });
});
