// Integration: throttling, transaction conflicts and lost answers on the wire, which DynamoDB Local
// never produces: the SDK retries them with backoff, then the client sees 500 and nothing is
// half-written (the spec's rule: a create's counter value may be spent, but no post is written).
import { Readable } from "node:stream";
import { BatchWriteCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DYNAMODB_MAX_ATTEMPTS } from "../../lib/storage/client.js";
import type { DynamoPostRepository } from "../../lib/storage/dynamo-repository.js";
import { type PostsTable, freshTable } from "../helpers/db.js";
import { invoke } from "../helpers/events.js";
import { handlersOver } from "../helpers/handlers.js";

let table: PostsTable;
let client: DynamoDBDocumentClient;
let repo: DynamoPostRepository;
/** Operation name → the error body DynamoDB would send for it. */
const faults = new Map<string, object>();
const attempts = new Map<string, number>();
/** Operation name → whether to drop the answer of this call after DynamoDB has acted on it. */
const lostAnswers = new Map<string, () => boolean>();

/** Passes requests to DynamoDB Local, except operations with a fault set, which fail on the wire. */
const wire = new NodeHttpHandler();
const errorAnswer = (statusCode: number, error: object) => {
  const headers = { "content-type": "application/x-amz-json-1.0" };
  return {
    response: { statusCode, headers, body: Readable.from([Buffer.from(JSON.stringify(error))]) },
  };
};
const faultyHandler = {
  async handle(request: { headers: Record<string, string> }) {
    const operation = String(request.headers["x-amz-target"]).split(".")[1] ?? "";
    attempts.set(operation, (attempts.get(operation) ?? 0) + 1);
    const fault = faults.get(operation);
    if (fault) return errorAnswer(400, fault);
    const answer = await wire.handle(request as Parameters<NodeHttpHandler["handle"]>[0]);
    if (!lostAnswers.get(operation)?.()) return answer;
    (answer.response.body as Readable).resume(); // drain the real answer, then lose it
    return errorAnswer(500, internalError);
  },
  updateHttpClientConfig() {},
  httpHandlerConfigs: () => ({}),
};

beforeAll(async () => {
  table = await freshTable("retries");
  ({ client, repository: repo } = table.connect({ requestHandler: faultyHandler }));
});
afterAll(async () => {
  client.destroy();
  wire.destroy();
  await table.drop();
});
beforeEach(() => {
  faults.clear();
  attempts.clear();
  lostAnswers.clear();
});

const internalError = {
  __type: "com.amazonaws.dynamodb.v20120810#InternalServerError",
  message: "Internal server error",
};
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
  /** A request naming the post with the id given. */
  const toPost = (method: "PUT" | "DELETE" | "GET", body?: unknown) => (postId: number) =>
    ({ method, postId, body }) as const;
  it.each([
    ["create", "PutItem", () => ({ method: "POST" as const, body: { title: "t", content: "c" } })],
    ["update", "UpdateItem", toPost("PUT", { title: "x" })],
    ["delete", "DeleteItem", toPost("DELETE")],
    ["get", "GetItem", toPost("GET")],
    ["list", "Scan", () => ({ method: "GET" as const })],
  ] as const)(
    "is retried by the SDK, then %s answers 500 and every post stays as it was",
    async (operation, call, request) => {
      const post = await table.repository.create({ title: "before", content: "c" });
      faults.set(call, throttled);
      const before = await table.posts();
      const response = await invoke(handlersOver(repo)[operation], request(post.id));
      expect(response).toMatchObject({ status: 500, body: { detail: expect.any(String) } });
      expect(attempts.get(call)).toBe(DYNAMODB_MAX_ATTEMPTS);
      expect(await table.posts()).toEqual(before);
    },
  );
});

describe("a transaction conflict on an idempotent create", () => {
  it("answers 500, writes no post and frees the key so the retry succeeds", async () => {
    faults.set("TransactWriteItems", conflicted);
    const request = {
      method: "POST" as const,
      body: { title: "t", content: "c" },
      headers: { "idempotency-key": `conflict-${Date.now()}` },
    };
    const before = await table.posts();
    const failed = await invoke(handlersOver(repo).create, request);
    expect(failed.status).toBe(500);
    expect((failed.body as { detail: string }).detail).toContain("TransactionCanceledException");
    expect(await table.posts()).toEqual(before);
    faults.clear();
    const retried = await invoke(handlersOver(repo).create, request);
    expect(retried.status).toBe(201);
  });
});

describe("a write whose answer is lost", () => {
  /** Lets the first call of `operation` reach DynamoDB, then tells the SDK it failed. */
  const loseFirstAnswer = (operation: string) => {
    let lost = false;
    lostAnswers.set(operation, () => {
      if (lost) return false;
      lost = true;
      return true;
    });
  };

  it("is one post when the SDK's retry finds its own write", async () => {
    loseFirstAnswer("PutItem");
    const body = { title: "answer lost", content: "c" };
    expect((await invoke(handlersOver(repo).create, { method: "POST", body })).status).toBe(201);
    expect(attempts.get("PutItem")).toBe(2);
    const stored = (await table.items()).filter((item) => item.title === "answer lost");
    expect(stored).toHaveLength(1);
  });

  it("is 201, not 409, for a client-chosen id the request itself wrote; 409 for another's", async () => {
    await table.repository.create({ id: 7_100, title: "theirs", content: "c" });
    for (const [id, answer] of [
      [7_000, { status: 201, body: { id: 7_000, title: "mine" } }],
      [7_100, { status: 409 }],
    ] as const) {
      loseFirstAnswer("PutItem");
      const body = { id, title: "mine", content: "c" };
      expect(await invoke(handlersOver(repo).create, { method: "POST", body })).toMatchObject(
        answer,
      );
    }
  });

  it("is one post for an idempotent create whose claim answer was lost", async () => {
    loseFirstAnswer("PutItem"); // the key's claim
    const body = { title: "claim lost", content: "c" };
    const headers = { "idempotency-key": `lost-${Date.now()}` };
    const response = await invoke(handlersOver(repo).create, { method: "POST", body, headers });
    expect(response.status).toBe(201);
    expect((await table.items()).filter((item) => item.title === "claim lost")).toHaveLength(1);
  });
});

describe("client-chosen ids ahead of the counter", () => {
  // Ids 1..500 taken, written straight to the table (25 an item batch): the counter knows none of
  // them, as after an import of client-chosen ids.
  async function squattedTable() {
    const squatted = await freshTable("squat");
    for (let first = 1; first <= 500; first += 25) {
      const puts = Array.from({ length: 25 }, (_, j) => ({
        PutRequest: { Item: { id: first + j, title: "squat", content: "", created_at: null } },
      }));
      const batch = new BatchWriteCommand({ RequestItems: { [squatted.tableName]: puts } });
      const { UnprocessedItems } = await squatted.documentClient.send(batch);
      expect(Object.keys(UnprocessedItems ?? {})).toEqual([]);
    }
    return squatted;
  }

  it.each([
    ["a plain create", {}],
    ["a create with an Idempotency-Key, which its retry replays", { "idempotency-key": "squat" }],
  ])("are skipped by %s in a few calls, each left as it was", async (_case, headers) => {
    const squatted = await squattedTable();
    const counted = squatted.connect({ requestHandler: faultyHandler });
    const create = handlersOver(counted.repository).create;
    try {
      attempts.clear();
      const body = { title: "after the squat", content: "" };
      const request = { method: "POST" as const, body, headers };
      const created = await invoke(create, request);
      expect(created.status).toBe(201);
      expect((created.body as { id: number }).id).toBeGreaterThan(500);
      const writes = ["UpdateItem", "PutItem", "TransactWriteItems"];
      const calls = writes.reduce((sum, operation) => sum + (attempts.get(operation) ?? 0), 0);
      expect(calls).toBeLessThanOrEqual(2 * 12); // about log2(500) rounds, not 500
      const posts = await squatted.posts();
      expect(posts.filter((post) => post.title === "squat")).toHaveLength(500);
      if ("idempotency-key" in headers) expect(await invoke(create, request)).toEqual(created);
    } finally {
      counted.client.destroy();
      await squatted.drop();
    }
  });
});
