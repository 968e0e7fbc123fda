// Unit: the posts table's and list cache's rules DynamoDB Local cannot reach or time (a counter
// past 2^53, the deadline's signal, the cache's ages, a write mid-Scan); the rest is integration.
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { marshall } from "@aws-sdk/util-dynamodb";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { ChangeMarker } from "../../../lib/storage/change-marker.js";
import { IdempotencyError, StorageError } from "../../../lib/posts/errors.js";
import { IdempotencyKeyTable } from "../../../lib/storage/idempotency-key-table.js";
import { ListCache } from "../../../lib/storage/list-cache.js";
import type { Post } from "../../../lib/posts/post.js";
import type { ListBody } from "../../../lib/posts/repository.js";
import type { StorageCounts } from "../../../lib/storage/counts.js";
import { COUNTER_ID, PostsTable } from "../../../lib/storage/posts-table.js";
import { Sender } from "../../../lib/storage/sender.js";
import { DynamoPostRepository } from "../../../lib/storage/dynamo-repository.js";

const TABLE = "posts";
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: "us-east-1" }));
const mock = mockClient(client);
const table = new PostsTable(new Sender(client, [TABLE]), TABLE);

beforeEach(() => mock.reset());
afterAll(() => mock.restore());

describe("PostsTable", () => {
  it.each([
    ["no attribute", {}],
    ["a value past 2^53 - 1", { Attributes: { last_id: 2 ** 53 } }],
  ])("refuses a counter answer with %s", async (_label, answer) => {
    mock.on(UpdateCommand).resolves(answer);
    await expect(table.reserveIds(1)).rejects.toEqual(
      new StorageError("IdSpaceExhausted: the id counter returned no usable id"),
    );
  });

  it("takes the counter's last id as the end of the block", async () => {
    mock.on(UpdateCommand).resolves({ Attributes: { last_id: 2 ** 53 - 1 } });
    expect(await table.reserveIds(10)).toBe(2 ** 53 - 1);
  });

  it.each([COUNTER_ID, -1, -8])("refuses to delete item %i, which is no post", async (id) => {
    await expect(table.delete(id)).rejects.toThrow(
      "The id counter and the change marker are not posts",
    );
    expect(mock.calls()).toHaveLength(0);
  });

  it("hands the deadline's signal to the SDK on every call, so the deadline can cancel it", async () => {
    mock.onAnyCommand().resolves({});
    mock.on(UpdateCommand).resolves({ Attributes: { last_id: 1 } });
    const { signal } = new AbortController();
    const stored = { id: 1, title: "t", content: "c", created_at: null, updated_at: null };
    await table.scanPages(() => {}, signal);
    await table.get(1, signal);
    await table.put(stored, signal);
    await table.update(1, { title: "u" }, signal);
    await table.delete(1, signal);
    await table.reserveIds(1, signal);
    const keys = new IdempotencyKeyTable(new Sender(client, ["keys"]), "keys");
    await keys.claim({ key: "k", fingerprint: "f" }, "owner", signal);
    await keys.release("k", "owner", signal);
    const calls = mock.calls();
    expect(calls).toHaveLength(8);
    for (const call of calls) {
      expect((call.args as unknown[])[1]).toMatchObject({ abortSignal: signal });
    }
  });
});

describe("an update", () => {
  const conditionFailed = (item?: Record<string, unknown>) =>
    Object.assign(new Error("The conditional request failed"), {
      name: "ConditionalCheckFailedException",
      Item: item && marshall(item),
    });

  it("fails after three attempts when its post is replaced under it each time", async () => {
    // A create within the race window every time: no local engine makes that happen on cue.
    const soon = () => new Date(Date.now() + 5_000).toISOString();
    mock.on(UpdateCommand).callsFake(() => {
      throw conditionFailed({ id: 4, created_at: soon() });
    });
    await expect(table.update(4, { title: "t" })).rejects.toThrow(
      new StorageError("the post kept being replaced"),
    );
    expect(mock.commandCalls(UpdateCommand)).toHaveLength(3);
  });

  it("stamps its second attempt with the new post's created_at", async () => {
    const createdAt = new Date(Date.now() + 5_000).toISOString();
    mock
      .on(UpdateCommand)
      .rejectsOnce(conditionFailed({ id: 4, created_at: createdAt }))
      .resolves({ Attributes: { id: 4, title: "t", updated_at: createdAt, version: 2 } });
    await table.update(4, { title: "t" });
    const second = mock.commandCalls(UpdateCommand)[1]?.args[0].input;
    expect(second?.ExpressionAttributeValues?.[":updated_at"]).toBe(createdAt);
  });
});

describe("a repository over the table", () => {
  it("names neither the posts table nor the keys table in a storage error", async () => {
    const failure = (table: string) => {
      const error = new Error(`Requested resource not found: Table: ${table}`);
      return Object.assign(error, { name: "ResourceNotFoundException" });
    };
    mock.on(GetCommand, { TableName: "prod-posts" }).rejects(failure("prod-posts"));
    mock.on(PutCommand, { TableName: "prod-keys" }).rejects(failure("prod-keys"));
    const keysTable = new IdempotencyKeyTable(new Sender(client, ["prod-keys"]), "prod-keys");
    const repository = new DynamoPostRepository(client, "prod-posts", {
      idempotencyTableName: "prod-keys",
    });
    for (const read of [
      () => repository.get(1),
      () => new PostsTable(new Sender(client, ["prod-posts"]), "prod-posts").get(1),
      () => keysTable.claim({ key: "k", fingerprint: "f" }, "o"),
    ]) {
      await expect(read()).rejects.toThrow(
        /ResourceNotFoundException: Requested resource not found: Table: <table>$/,
      );
    }
  });

  it("refuses an Idempotency-Key create as disabled without a keys table, writing nothing", async () => {
    const create = new DynamoPostRepository(client, TABLE).createOnce(
      { title: "t", content: "c" },
      { key: "k", fingerprint: "f" },
    );
    await expect(create).rejects.toEqual(new IdempotencyError("disabled"));
    expect(mock.commandCalls(PutCommand)).toHaveLength(0);
  });
});

describe("ListCache", () => {
  const post = (id: number, title = `#${id}`): Post => {
    return { id, title, content: "c", created_at: null, updated_at: null };
  };
  /** A table scanning `rows` (pages; `during` runs mid-Scan) and a one-shard marker `write` fills. */
  function standIns(rows: Post[][], during = () => {}) {
    const shard = { count: 0, written: new Map<number, number>() };
    let scans = 0;
    const reads: number[][] = [];
    const stored = () => new Map(rows.flat().map((p) => [p.id, p]));
    const fakeTable = {
      scanPages: async (take: (posts: Post[]) => void) => {
        scans++;
        const [first, ...rest] = rows;
        take(first ?? []);
        during();
        for (const page of rest) take(page);
      },
      getMany: async (ids: number[], take: (post: Post) => void) => {
        reads.push(ids);
        for (const id of ids) if (stored().has(id)) take(stored().get(id)!);
      },
    } as unknown as PostsTable;
    const fakeMarker = { read: async () => [structuredClone(shard)] } as unknown as ChangeMarker;
    const write = (id: number, recorded = true) => {
      shard.count++;
      if (recorded) shard.written.set(shard.count, id);
    };
    return { fakeTable, fakeMarker, write, scans: () => scans, reads };
  }
  const titles = (body: ListBody) =>
    JSON.parse(Buffer.concat(body.json).toString()).map((p: Post) => p.title);

  it("answers a kept list until its max age, and scans again at exactly that age", async () => {
    let now = 0;
    const { fakeTable, fakeMarker, scans } = standIns([[post(1)]]);
    const cache = new ListCache(fakeTable, fakeMarker, { maxAgeMs: 1_000, clock: () => now });
    await cache.read();
    now = 999;
    await cache.read();
    expect(scans()).toBe(1);
    now = 1_000;
    await cache.read();
    expect(scans()).toBe(2);
  });

  it("patches the kept list with the posts written since: put in place, replaced, taken out", async () => {
    const rows = [[post(2), post(4)]];
    const { fakeTable, fakeMarker, write, scans, reads } = standIns(rows);
    const cache = new ListCache(fakeTable, fakeMarker);
    await cache.read();
    rows[0] = [post(1), post(3), post(4, "four")];
    for (const id of [1, 3, 4, 2]) write(id);
    const counts: StorageCounts = {};
    const body = await cache.read(undefined, counts);
    expect(titles(body)).toEqual(["#1", "#3", "four"]);
    expect(body).toEqual(await new ListCache(fakeTable, fakeMarker).read());
    expect(counts).toEqual({ ListPatched: 1 });
    expect(reads).toEqual([[1, 3, 4, 2]]);
    expect(scans()).toBe(2);
    await cache.read(undefined, counts);
    expect(counts).toEqual({ ListPatched: 1, ListFromMemory: 1 });
  });

  it("keeps a Scan during which a write landed, and reads that post again next time", async () => {
    const rows = [[post(1)], [post(2)]];
    const { fakeTable, fakeMarker, write, scans, reads } = standIns(rows, () => {
      if (scans() === 1) {
        rows[0] = [post(1, "renamed")];
        write(1);
      }
    });
    const cache = new ListCache(fakeTable, fakeMarker);
    expect(titles(await cache.read())).toEqual(["#1", "#2"]);
    expect(titles(await cache.read())).toEqual(["renamed", "#2"]);
    expect(scans()).toBe(1);
    expect(reads).toEqual([[1]]);
  });

  it("waits for a counted write's slot until the grace, then scans", async () => {
    let now = 0;
    const rows = [[post(1)]];
    const { fakeTable, fakeMarker, write, scans } = standIns(rows);
    const cache = new ListCache(fakeTable, fakeMarker, { graceMs: 500, clock: () => now });
    await cache.read();
    rows[0] = [post(1), post(2)];
    write(2, false);
    expect(titles(await cache.read())).toEqual(["#1"]);
    now = 499;
    expect(titles(await cache.read())).toEqual(["#1"]);
    expect(scans()).toBe(1);
    now = 500;
    expect(titles(await cache.read())).toEqual(["#1", "#2"]);
    expect(scans()).toBe(2);
  });
});
