// Unit: every read a guarantee rests on asks DynamoDB for a strongly consistent answer. DynamoDB
// Local is always consistent, so only the calls' inputs can show it; the client is mocked here.
import {
  BatchGetCommand,
  GetCommand,
  PutCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { marshall } from "@aws-sdk/util-dynamodb";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { fingerprintPayload } from "../../../lib/posts/idempotency-key.js";
import type { Config } from "../../../lib/app/config.js";
import { dynamoRepository } from "../../../lib/app/runtime.js";
import { createDocumentClient } from "../../../lib/storage/client.js";
import { invoke } from "../../helpers/events.js";
import { handlersOver } from "../../helpers/handlers.js";

const [POSTS, KEYS] = ["posts", "keys"];
const config = { tableName: POSTS, idempotencyTableName: KEYS, idBlockSize: 1 } as Config;
const client = createDocumentClient({ region: "us-east-1", endpoint: "http://127.0.0.1:9" });
const posts = dynamoRepository(config, client);
const mock = mockClient(client);
const api = handlersOver(posts);

const AT = "2026-03-04T15:06:07.000Z";
const stored = (id: number) => ({ id, title: "t", content: "c", created_at: AT, updated_at: AT });

beforeEach(() => {
  mock.reset();
  // The change marker's ADD answers the shard's count, which numbers the write's slot.
  mock.on(UpdateCommand).resolves({ Attributes: { changes: 1 } });
});
afterAll(() => {
  mock.restore();
  client.destroy();
});

describe("consistent reads", () => {
  it("get reads the post consistently, so a post just written is never 404", async () => {
    mock.on(GetCommand).resolves({ Item: stored(7) });
    expect((await invoke(api.get, { method: "GET", postId: "7" })).status).toBe(200);
    expect(mock.commandCalls(GetCommand).map((call) => call.args[0].input)).toEqual([
      expect.objectContaining({ TableName: POSTS, Key: { id: 7 }, ConsistentRead: true }),
    ]);
  });

  it("list reads the change marker and every Scan page consistently, so no page misses a recent write", async () => {
    const answers = [
      { Items: [stored(1), stored(2)], LastEvaluatedKey: { id: 2 } },
      { Items: [stored(3)], LastEvaluatedKey: { id: 3 } },
      { Items: [stored(4)] },
    ];
    // The paginator reuses one input object for every page: each is copied as sent.
    const pages: Record<string, unknown>[] = [];
    mock.on(ScanCommand).callsFake((input: Record<string, unknown>) => {
      pages.push({ ...input });
      return answers.shift();
    });
    mock.on(BatchGetCommand).resolves({ Responses: { [POSTS]: [] } });
    const response = await invoke(api.list, { method: "GET" });
    expect((response.body as { id: number }[]).map((post) => post.id)).toEqual([1, 2, 3, 4]);
    const markerReads = mock.commandCalls(BatchGetCommand);
    expect(markerReads.length).toBeGreaterThan(0);
    for (const read of markerReads) {
      expect(read.args[0].input.RequestItems?.[POSTS]).toMatchObject({ ConsistentRead: true });
    }
    expect(pages.map((page) => page.ExclusiveStartKey)).toEqual([undefined, { id: 2 }, { id: 3 }]);
    for (const page of pages)
      expect(page).toMatchObject({ TableName: POSTS, ConsistentRead: true });
  });

  it("a retry learns its Idempotency-Key record from the refused claim: it replays, never writes twice", async () => {
    const body = { title: "t", content: "c" };
    // The first request with this key has finished; the refusal brings its record (ALL_OLD).
    const expiresAt = Math.floor(Date.now() / 1000) + 60;
    const done = { key: "k", fingerprint: fingerprintPayload(body), owner: "first", state: "done" };
    const Item = marshall({ ...done, status: 201, post: stored(9), expires_at: expiresAt });
    const refused = { name: "ConditionalCheckFailedException", $fault: "client", Item };
    mock
      .on(PutCommand)
      .rejects(Object.assign(new Error("The conditional request failed"), refused));
    const headers = { "Idempotency-Key": "k" };
    const response = await invoke(api.create, { method: "POST", body, headers });
    expect(response).toMatchObject({ status: 201, body: { id: 9 } });
    expect(mock.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(mock.commandCalls(GetCommand)).toHaveLength(0);
    expect(mock.commandCalls(PutCommand)[0]!.args[0].input).toMatchObject({
      TableName: KEYS,
      ReturnValuesOnConditionCheckFailure: "ALL_OLD",
    });
  });
});
