// Integration: throttling and transaction conflicts on the wire, which DynamoDB Local never
// produces: the SDK retries them with backoff, then the client sees 500 and nothing is half-written.
import { Readable } from "node:stream";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPost } from "../../handlers/create-post.js";
import { updatePost } from "../../handlers/update-post.js";
import { readConfig } from "../../lib/config.js";
import {
  DYNAMODB_MAX_ATTEMPTS,
  DynamoPostRepository,
  createDocumentClient,
} from "../../lib/repository.js";
import { freshTable } from "../helpers/db.js";
import { invoke } from "../helpers/events.js";

let table: Awaited<ReturnType<typeof freshTable>>;
let client: DynamoDBDocumentClient;
let repo: DynamoPostRepository;
/** Operation name → the error body DynamoDB would send for it. */
const faults = new Map<string, object>();
const attempts = new Map<string, number>();

/** Passes requests to DynamoDB Local, except operations with a fault set, which fail on the wire. */
const wire = new NodeHttpHandler();
const faultyHandler = {
  async handle(request: { headers: Record<string, string> }) {
    const operation = String(request.headers["x-amz-target"]).split(".")[1] ?? "";
    attempts.set(operation, (attempts.get(operation) ?? 0) + 1);
    const fault = faults.get(operation);
    if (!fault) return wire.handle(request as Parameters<NodeHttpHandler["handle"]>[0]);
    const body = Readable.from([Buffer.from(JSON.stringify(fault))]);
    const headers = { "content-type": "application/x-amz-json-1.0" };
    return { response: { statusCode: 400, headers, body } };
  },
  updateHttpClientConfig() {},
  httpHandlerConfigs: () => ({}),
};

beforeAll(async () => {
  table = await freshTable("retries");
  const config = readConfig({
    TABLE_NAME: table.tableName,
    AWS_ENDPOINT_URL_DYNAMODB: table.endpoint,
  });
  client = createDocumentClient(config, { requestHandler: faultyHandler });
  repo = new DynamoPostRepository(client, table.tableName, {
    idempotencyTableName: table.idempotencyTableName,
  });
});
afterAll(async () => {
  client.destroy();
  wire.destroy();
  await table.drop();
});
beforeEach(() => {
  faults.clear();
  attempts.clear();
});

const throttled = {
  __type: "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
  message: "The level of configured provisioned throughput for the table was exceeded",
};
const conflicted = {
  __type: "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
  message:
    "Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict, None]",
  CancellationReasons: [
    { Code: "TransactionConflict", Message: "Transaction is ongoing for the item" },
    { Code: "None" },
  ],
};

describe("throttling", () => {
  it("is retried by the SDK, then create answers 500 with no post written", async () => {
    faults.set("PutItem", throttled);
    const before = (await table.items()).filter((item) => item.id !== 0);
    const response = await invoke(createPost(repo), {
      method: "POST",
      body: { title: "t", content: "c" },
    });
    expect(response).toMatchObject({
      status: 500,
      body: { detail: `DB ERROR: ProvisionedThroughputExceededException: ${throttled.message}` },
    });
    expect(attempts.get("PutItem")).toBe(DYNAMODB_MAX_ATTEMPTS);
    expect((await table.items()).filter((item) => item.id !== 0)).toEqual(before);
  });

  it("is retried on update too, and the stored post stays as it was", async () => {
    const post = await table.repository.create({ title: "before", content: "c" });
    faults.set("UpdateItem", throttled);
    const response = await invoke(updatePost(repo), {
      method: "PUT",
      postId: String(post.id),
      body: { title: "after" },
    });
    expect(response.status).toBe(500);
    expect(attempts.get("UpdateItem")).toBe(DYNAMODB_MAX_ATTEMPTS);
    expect(await table.repository.get(post.id)).toEqual(post);
  });
});

describe("a transaction conflict on an idempotent create", () => {
  it("answers 500, writes no post and frees the key so the retry succeeds", async () => {
    faults.set("TransactWriteItems", conflicted);
    const request = {
      method: "POST" as const,
      body: { title: "t", content: "c" },
      headers: { "idempotency-key": `conflict-${Date.now()}` },
    };
    const before = (await table.items()).filter((item) => item.id !== 0);
    const failed = await invoke(createPost(repo), request);
    expect(failed.status).toBe(500);
    expect((failed.body as { detail: string }).detail).toMatch(
      /^DB ERROR: TransactionCanceledException: /,
    );
    expect((await table.items()).filter((item) => item.id !== 0)).toEqual(before);
    faults.clear();
    const retried = await invoke(createPost(repo), request);
    expect(retried.status).toBe(201);
  });
});
