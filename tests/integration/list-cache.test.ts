// Integration: the list cache on DynamoDB Local: one call when nothing changed, a patch with the
// changed posts when something did, and the one failure window no ring records (a write whose
// marker ADD failed). tests/integration/list-changes.test.ts holds the costs and the other faults.
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
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
import { markerId } from "../../lib/storage/change-marker.js";
import { DynamoPostRepository } from "../../lib/storage/dynamo-repository.js";
import { type PostsTable, freshTable } from "../helpers/db.js";
import { invoke } from "../helpers/events.js";
import { type Handlers, handlersOver } from "../helpers/handlers.js";

let table: PostsTable;
const clients: DynamoDBDocumentClient[] = [];

beforeAll(async () => {
  table = await freshTable("list-cache");
});
afterAll(async () => {
  for (const client of clients) client.destroy();
  await table.drop();
});

/** Another instance on the table: its own client, repository and list cache, counting its calls. */
function instance(options: { listMaxAgeMs?: number } = {}) {
  const { client } = table.connect();
  clients.push(client);
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
  return { client, repository, calls, api: handlersOver(repository) };
}

const titles = async (api: Handlers) => {
  const answer = await invoke(api.list, { method: "GET" });
  expect(answer.status).toBe(200);
  return (answer.body as { title: string }[]).map((post) => post.title);
};
const create = async (api: Handlers, title: string, headers: Record<string, string> = {}) =>
  invoke(api.create, { method: "POST", body: { title, content: "c" }, headers });

describe("a list", () => {
  it("costs one BatchGetItem and no Scan while nothing changed, 304 included", async () => {
    const reader = instance();
    await create(reader.api, "warm");
    const first = await invoke(reader.api.list, { method: "GET" });
    reader.calls.length = 0;
    const again = await invoke(reader.api.list, { method: "GET" });
    expect(again).toEqual(first);
    const held = await invoke(reader.api.list, {
      method: "GET",
      headers: { "if-none-match": String(first.headers.etag) },
    });
    expect(held.status).toBe(304);
    expect(reader.calls).toEqual(["BatchGetItemCommand", "BatchGetItemCommand"]);
  });

  it("after a write on another instance reads that post, not the table, and shows it", async () => {
    const [reader, writer] = [instance(), instance()];
    await titles(reader.api);
    const made = await create(writer.api, "from elsewhere");
    reader.calls.length = 0;
    expect(await titles(reader.api)).toContain("from elsewhere");
    expect(reader.calls).toEqual(["BatchGetItemCommand", "BatchGetItemCommand"]);
    const id = (made.body as { id: number }).id;
    await invoke(writer.api.update, { method: "PUT", postId: id, body: { title: "renamed" } });
    expect(await titles(reader.api)).toContain("renamed");
    await invoke(writer.api.delete, { method: "DELETE", postId: id });
    expect(await titles(reader.api)).not.toContain("renamed");
    expect(reader.calls).not.toContain("ScanCommand");
  });

  it("keeps a body the marker moved during, and reads the post written meanwhile next", async () => {
    const [reader, writer] = [instance(), instance()];
    let wrote = false;
    // A write lands while the reader's Scan is under way (before its first page is read).
    reader.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === "ScanCommand" && !wrote) {
          wrote = true;
          await create(writer.api, "during the scan");
        }
        return next(args);
      },
      { step: "initialize", name: "writeDuringScan" },
    );
    await titles(reader.api);
    reader.calls.length = 0;
    expect(await titles(reader.api)).toContain("during the scan");
    expect(reader.calls).toEqual(["BatchGetItemCommand", "BatchGetItemCommand"]);
    reader.calls.length = 0;
    await titles(reader.api);
    expect(reader.calls).toEqual(["BatchGetItemCommand"]);
  });

  it("reads shards DynamoDB left unprocessed, and fails clearly when they stay so", async () => {
    const reader = instance();
    await create(reader.api, "unprocessed");
    const real = table.documentClient;
    const mock = mockClient(reader.client);
    try {
      mock.on(ScanCommand).callsFake((input) => real.send(new ScanCommand(input)));
      mock.on(BatchGetCommand).callsFake(async (input: BatchGetCommand["input"]) => {
        // Answer half the keys and hand the rest back, as DynamoDB does when throttled.
        const [name, request] = Object.entries(input.RequestItems ?? {})[0]!;
        const keys = request.Keys ?? [];
        const [first, rest] = [keys.slice(0, keys.length / 2 + 1), keys.slice(keys.length / 2 + 1)];
        const answer = await real.send(
          new BatchGetCommand({ RequestItems: { [name]: { ...request, Keys: first } } }),
        );
        const left = rest.length ? { [name]: { ...request, Keys: rest } } : undefined;
        return { Responses: answer.Responses, UnprocessedKeys: left };
      });
      const listed = await invoke(reader.api.list, { method: "GET" });
      expect(listed.status, JSON.stringify(listed.body)).toBe(200);
      expect(JSON.stringify(listed.body)).toContain("unprocessed");
      expect(mock.commandCalls(BatchGetCommand).length).toBeGreaterThan(2);
      mock.on(BatchGetCommand).resolves({
        Responses: {},
        UnprocessedKeys: { [table.tableName]: { Keys: [{ id: markerId(0) }] } },
      });
      const refused = await invoke(reader.api.list, { method: "GET" });
      expect(refused.status).toBe(500);
      expect(refused.body).toEqual({
        detail: "DB ERROR: ProvisionedThroughputExceededException: change marker unread",
      });
    } finally {
      mock.restore();
    }
  });
});

describe("a write whose marker advance fails", () => {
  /** A writer whose marker updates fail; every other call reaches DynamoDB Local. */
  function brokenMarkerWriter() {
    const writer = instance();
    const real = table.documentClient;
    const mock = mockClient(writer.client);
    mock.on(GetCommand).callsFake((input) => real.send(new GetCommand(input)));
    mock.on(PutCommand).callsFake((input) => real.send(new PutCommand(input)));
    mock.on(DeleteCommand).callsFake((input) => real.send(new DeleteCommand(input)));
    mock.on(TransactWriteCommand).callsFake((input) => real.send(new TransactWriteCommand(input)));
    mock.on(UpdateCommand).callsFake((input: UpdateCommand["input"]) => {
      if (Number(input.Key?.id) < 0) {
        const error = Object.assign(new Error("Internal server error"), {
          name: "InternalServerError",
          $fault: "server",
        });
        return Promise.reject(error);
      }
      return real.send(new UpdateCommand(input));
    });
    return { ...writer, mock };
  }

  it("answers 500, is served stale until the cache's max age, then heals", async () => {
    const healthy = instance();
    const [cached, shortLived] = [instance(), instance({ listMaxAgeMs: 300 })];
    const broken = brokenMarkerWriter();
    try {
      await titles(cached.api);
      await titles(shortLived.api);
      const answer = await create(broken.api, "unacknowledged");
      expect(answer).toMatchObject({
        status: 500,
        body: { detail: "DB ERROR: InternalServerError: Internal server error" },
      });
      // The post landed, but no acknowledged write says so: the window this cache accepts.
      expect((await table.items()).some((item) => item.title === "unacknowledged")).toBe(true);
      expect(await titles(cached.api)).not.toContain("unacknowledged");
      // A later acknowledged write is listed at once, but names only its own post.
      await create(healthy.api, "acknowledged");
      const patched = await titles(cached.api);
      expect(patched).toContain("acknowledged");
      expect(patched).not.toContain("unacknowledged");
      await new Promise((resolve) => setTimeout(resolve, 350));
      expect(await titles(shortLived.api)).toEqual(
        expect.arrayContaining(["unacknowledged", "acknowledged"]),
      );
    } finally {
      broken.mock.restore();
    }
  });

  it("on an idempotent create, is healed by the retry that replays it", async () => {
    const [healthy, cached] = [instance(), instance()];
    const broken = brokenMarkerWriter();
    const headers = { "Idempotency-Key": `marker-${Date.now()}` };
    try {
      await titles(cached.api);
      expect((await create(broken.api, "retried", headers)).status).toBe(500);
      expect(await titles(cached.api)).not.toContain("retried");
    } finally {
      broken.mock.restore();
    }
    const replay = await create(healthy.api, "retried", headers);
    expect(replay.status).toBe(201);
    expect(await titles(cached.api)).toContain("retried");
  });
});
