// Integration: storage failures give 500 `DB ERROR: …` and leave nothing half-written: a call that
// fails, DynamoDB unreachable, and DynamoDB Local stopped in the middle of a workload, then
// restarted on its files.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
import { COUNTER_ID } from "../../lib/storage/posts-table.js";
import type { DynamoPostRepository } from "../../lib/storage/dynamo-repository.js";
import { ensureTable, localClient, startDynamoDbLocal } from "../../scripts/lib/dynamodb-local.mjs";
import { freePort } from "../../scripts/lib/ports.mjs";
import {
  type PostsTable,
  connectStorage,
  freshTable,
  localConfig,
  postsOf,
  scanItems,
} from "../helpers/db.js";
import { type Invocation, invoke } from "../helpers/events.js";
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

// DynamoDB Local stopped mid-workload and restarted on its files; its own instance, file-backed.
const TABLE = "outage-posts";
/** The functions' configured timeout (serverless.yml): no request may take longer. */
const FUNCTION_TIMEOUT_MS = 10_000;

let dataDir = "";
let port = 0;
let db: Awaited<ReturnType<typeof startDynamoDbLocal>> | undefined;
let outageRepo: DynamoPostRepository;
let outageClient: DynamoDBDocumentClient;
/** Every DynamoDB Local this file started: a restart cut short by a timeout is stopped too. */
const started = new Set<Awaited<ReturnType<typeof startDynamoDbLocal>>>();
const startDb = async () => {
  const instance = await startDynamoDbLocal({ port, dbPath: dataDir });
  started.add(instance);
  return instance;
};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "blog-post-outage-"));
  port = await freePort();
  db = await startDb();
  const admin = localClient(db.endpoint);
  await ensureTable(admin, TABLE);
  admin.destroy();
  ({ client: outageClient, repository: outageRepo } = connectStorage(
    localConfig(db.endpoint, TABLE),
  ));
});

afterAll(async () => {
  outageClient?.destroy();
  await Promise.all([...started].map((instance) => instance.stop()));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface Outcome extends Invocation {
  op: "create" | "update" | "get" | "delete";
  id?: number;
  phase: "before" | "outage" | "after";
  ms: number;
}

describe("a storage outage", () => {
  // 90 s: it restarts Java mid-test, which on a busy machine (two clones testing at once) alone can
  // take most of the default 30 s.
  it("gives 500 DB ERROR promptly while storage is down and loses nothing acknowledged", async () => {
    const outcomes: Outcome[] = [];
    let phase: Outcome["phase"] = "before";
    const run = async (op: Outcome["op"], id?: number, body?: unknown) => {
      const started = performance.now();
      const handler = handlersOver(outageRepo)[op];
      const method = ({ create: "POST", update: "PUT", get: "GET", delete: "DELETE" } as const)[op];
      const seenPhase = phase;
      const result = await invoke(handler, {
        method,
        ...(id === undefined ? {} : { postId: String(id) }),
        ...(body === undefined ? {} : { body }),
      });
      outcomes.push({ ...result, op, id, phase: seenPhase, ms: performance.now() - started });
      return result;
    };
    const round = async (label: string) => {
      const made = await run("create", undefined, { title: label, content: "c" });
      const id = (made.body as { id?: number }).id ?? 1;
      await Promise.all([
        run("update", id, { content: `${label} updated` }),
        run("get", id),
        run("create", undefined, { title: `${label} b`, content: "c" }),
      ]);
      if (made.status === 201 && label.endsWith("3")) await run("delete", id);
    };

    for (let i = 0; i < 6; i++) await round(`before ${i}`);
    await db?.stop(); // Java gone: connections refused
    phase = "outage";
    for (let i = 0; i < 4; i++) await round(`outage ${i}`);
    db = await startDb();
    phase = "after";
    for (let i = 0; i < 6; i++) await round(`after ${i}`);

    const slowest = Math.max(...outcomes.map((o) => o.ms));
    const tally = (phase: string) => outcomes.filter((o) => o.phase === phase).length;
    console.log(
      `outage: ${outcomes.length} requests (${tally("before")} before, ${tally("outage")} during, ` +
        `${tally("after")} after the restart); slowest ${Math.round(slowest)} ms`,
    );

    // During the outage every request failed cleanly and quickly.
    const during = outcomes.filter((o) => o.phase === "outage");
    expect(during.length).toBeGreaterThan(0);
    for (const outcome of during) {
      expect(outcome.status).toBe(500);
      expect((outcome.body as { detail: string }).detail).toMatch(/^DB ERROR: /);
    }
    for (const outcome of outcomes) expect(outcome.ms).toBeLessThan(FUNCTION_TIMEOUT_MS);

    // Before and after, storage answered normally.
    for (const outcome of outcomes.filter((o) => o.phase !== "outage")) {
      expect([200, 201, 204]).toContain(outcome.status);
    }

    // Every acknowledged create survived the restart, unless an acknowledged delete removed it.
    const deleted = new Set(
      outcomes.filter((o) => o.op === "delete" && o.status === 204).map((o) => o.id),
    );
    const created = outcomes.filter((o) => o.op === "create" && o.status === 201);
    const admin = localClient(db!.endpoint);
    const stored = postsOf(await scanItems(admin, TABLE));
    admin.destroy();
    const storedIds = new Set(stored.map((post) => post.id));
    for (const made of created) {
      const id = (made.body as { id: number }).id;
      expect(storedIds.has(id)).toBe(deleted.has(id) ? false : true);
    }
    expect(new Set(created.map((o) => (o.body as { id: number }).id)).size).toBe(created.length);

    // The counter never went back: it is at least every id it issued.
    const counter = await outageClient.send(
      new GetCommand({ TableName: TABLE, Key: { id: COUNTER_ID } }),
    );
    expect(Number(counter.Item?.last_id)).toBeGreaterThanOrEqual(Math.max(...storedIds));
    for (const post of stored) expect(post.updated_at! >= post.created_at!).toBe(true);
  }, 90_000);
});
