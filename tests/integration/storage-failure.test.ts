// Integration: storage failures give 500 `DB ERROR: …` and leave nothing half-written.
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { DynamoPostRepository } from "../../lib/storage/dynamo-repository.js";
import { freePort } from "../../scripts/lib/ports.mjs";
import { type PostsTable, connectStorage, freshTable, localConfig } from "../helpers/db.js";
import { invoke } from "../helpers/events.js";
import { handlersOver } from "../helpers/handlers.js";

let table: PostsTable;
/** A second client on the same table that fails the calls a test chooses and forwards the rest. */
let faulty: DynamoDBDocumentClient;
let mock: ReturnType<typeof mockClient>;
let repo: DynamoPostRepository;

const awsError = (name: string, message: string) =>
  Object.assign(new Error(message), { name, $fault: "server" });

beforeAll(async () => {
  table = await freshTable("faults");
  ({ client: faulty, repository: repo } = table.connect());
  mock = mockClient(faulty);
});
afterAll(async () => {
  mock.restore();
  faulty.destroy();
  await table.drop();
});
beforeEach(() => {
  mock.reset();
  const real = table.documentClient;
  mock.on(GetCommand).callsFake((input) => real.send(new GetCommand(input)));
  mock.on(BatchGetCommand).callsFake((input) => real.send(new BatchGetCommand(input)));
  mock.on(PutCommand).callsFake((input) => real.send(new PutCommand(input)));
  mock.on(UpdateCommand).callsFake((input) => real.send(new UpdateCommand(input)));
  mock.on(DeleteCommand).callsFake((input) => real.send(new DeleteCommand(input)));
  mock.on(ScanCommand).callsFake((input) => real.send(new ScanCommand(input)));
});

const FAILURE = awsError("InternalServerError", "Internal server error");

describe("a DynamoDB error", () => {
  it("during create: 500, no post written (the counter value may be spent)", async () => {
    mock.on(PutCommand).rejects(FAILURE);
    const before = (await table.items()).filter((item) => Number(item.id) > 0);
    const response = await invoke(handlersOver(repo).create, {
      method: "POST",
      body: { title: "t", content: "c" },
    });
    expect(response).toMatchObject({
      status: 500,
      body: { detail: "DB ERROR: InternalServerError: Internal server error" },
    });
    expect((await table.items()).filter((item) => Number(item.id) > 0)).toEqual(before);
  });

  it("during update: 500 and the stored post unchanged", async () => {
    const post = await table.repository.create({ title: "keep", content: "me" });
    mock.on(UpdateCommand).rejects(FAILURE);
    const response = await invoke(handlersOver(repo).update, {
      method: "PUT",
      postId: String(post.id),
      body: { title: "lost" },
    });
    expect(response).toMatchObject({
      status: 500,
      body: { detail: "DB ERROR: InternalServerError: Internal server error" },
    });
    expect(await table.repository.get(post.id)).toEqual(post);
  });

  it("during delete: 500 and the post still there", async () => {
    const post = await table.repository.create({ title: "stay", content: "" });
    mock.on(DeleteCommand).rejects(FAILURE);
    const response = await invoke(handlersOver(repo).delete, {
      method: "DELETE",
      postId: String(post.id),
    });
    expect(response).toMatchObject({
      status: 500,
      body: { detail: "DB ERROR: InternalServerError: Internal server error" },
    });
    expect(await table.repository.get(post.id)).toEqual(post);
  });

  it("during get: 500 with the same shape", async () => {
    mock.on(GetCommand).rejects(FAILURE);
    expect(await invoke(handlersOver(repo).get, { method: "GET", postId: "1" })).toMatchObject({
      status: 500,
      body: { detail: "DB ERROR: InternalServerError: Internal server error" },
    });
  });

  it("during list: 500 with the same shape", async () => {
    mock.on(ScanCommand).rejects(FAILURE);
    expect(await invoke(handlersOver(repo).list, { method: "GET" })).toMatchObject({
      status: 500,
      body: { detail: "DB ERROR: InternalServerError: Internal server error" },
    });
  });

  it("on a later Scan page: 500, never a partial list", async () => {
    mock
      .on(ScanCommand)
      .resolvesOnce({
        Items: [{ id: 1, title: "t", content: "c", created_at: null, updated_at: null }],
        LastEvaluatedKey: { id: 1 },
      })
      .rejects(FAILURE);
    expect(await invoke(handlersOver(repo).list, { method: "GET" })).toMatchObject({ status: 500 });
  });

  it("never shows ARNs, account ids or the table name", async () => {
    mock
      .on(PutCommand)
      .rejects(
        awsError(
          "AccessDeniedException",
          `User: arn:aws:sts::123456789012:assumed-role/api/fn is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:123456789012:table/${table.tableName}`,
        ),
      );
    const response = await invoke(handlersOver(repo).create, {
      method: "POST",
      body: { title: "t", content: "c" },
    });
    const detail = (response.body as { detail: string }).detail;
    expect(response.status).toBe(500);
    expect(detail).toMatch(/^DB ERROR: AccessDeniedException: /);
    expect(detail).not.toMatch(/arn:|123456789012/);
    expect(detail).not.toContain(table.tableName);
  });
});

describe("an unreachable DynamoDB", () => {
  it("answers 500 DB ERROR promptly on every operation", async () => {
    const port = await freePort();
    const { client, repository: down } = connectStorage(
      localConfig(`http://127.0.0.1:${port}`, "nowhere"),
    );
    try {
      const started = Date.now();
      const responses = await Promise.all([
        invoke(handlersOver(down).list, { method: "GET" }),
        invoke(handlersOver(down).get, { method: "GET", postId: "1" }),
        invoke(handlersOver(down).create, { method: "POST", body: { title: "t", content: "c" } }),
        invoke(handlersOver(down).update, { method: "PUT", postId: "1", body: {} }),
        invoke(handlersOver(down).delete, { method: "DELETE", postId: "1" }),
      ]);
      for (const response of responses) {
        expect(response.status).toBe(500);
        expect((response.body as { detail: string }).detail).toMatch(
          /^DB ERROR: \w+: .*ECONNREFUSED/,
        );
      }
      expect(Date.now() - started).toBeLessThan(10_000); // the functions' configured timeout
    } finally {
      client.destroy();
    }
  });
});
