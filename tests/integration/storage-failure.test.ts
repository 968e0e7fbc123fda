// Integration: storage failures give 500 and leave nothing half-written: a call that
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
  // The spec's rule: in the 500 case the pending change is rolled back (a create's counter value
  // may be spent, but no post is written).
  /** A request naming the post with the id given. */
  const toPost = (method: "PUT" | "DELETE" | "GET", body?: unknown) => (postId: number) => ({
    method,
    postId,
    body,
  });
  it.each([
    ["create", PutCommand, () => ({ method: "POST" as const, body: { title: "t", content: "c" } })],
    ["update", UpdateCommand, toPost("PUT", { title: "x" })],
    ["delete", DeleteCommand, toPost("DELETE")],
    ["get", GetCommand, toPost("GET")],
    ["list", ScanCommand, () => ({ method: "GET" as const })],
  ] as const)("during %s: 500, and every post as it was", async (operation, command, request) => {
    const { id } = await table.repository.create({ title: "keep", content: "me" });
    // One of the commands the beforeEach forwards, failing this time.
    mock.on(command as typeof GetCommand).rejects(FAILURE);
    const before = await table.posts();
    const response = await invoke(handlersOver(repo)[operation], request(id));
    expect(response).toMatchObject({ status: 500, body: { detail: expect.any(String) } });
    expect(await table.posts()).toEqual(before);
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
});

describe("an unreachable DynamoDB", () => {
  it("answers 500 promptly on every operation, naming the refused connection", async () => {
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
        expect((response.body as { detail: string }).detail).toContain("ECONNREFUSED");
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
  it("gives 500 promptly while storage is down and loses nothing acknowledged", async () => {
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
      expect(outcome).toMatchObject({ status: 500, body: { detail: expect.any(String) } });
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
