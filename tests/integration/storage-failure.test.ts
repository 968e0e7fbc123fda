// Integration: storage failures give 500 and leave nothing acknowledged lost: DynamoDB unreachable,
// and DynamoDB Local stopped mid-workload, then restarted on its files (failing calls: sdk-retries).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COUNTER_ID } from "../../lib/storage/posts-table.js";
import type { DynamoPostRepository } from "../../lib/storage/dynamo-repository.js";
import { ensureTable, localClient, startDynamoDbLocal } from "../../scripts/lib/dynamodb-local.mjs";
import { freePort } from "../../scripts/lib/ports.mjs";
import { connectStorage, localConfig, postsOf, scanItems } from "../helpers/db.js";
import { type Invocation, invoke } from "../helpers/events.js";
import { handlersOver } from "../helpers/handlers.js";

describe("an unreachable DynamoDB", () => {
  it("answers 500 promptly on every operation, naming the refused connection", async () => {
    const port = await freePort();
    const config = localConfig(`http://127.0.0.1:${port}`, "nowhere");
    const { client, repository } = connectStorage(config);
    const down = handlersOver(repository);
    try {
      const started = Date.now();
      const responses = await Promise.all([
        invoke(down.list, { method: "GET" }),
        invoke(down.get, { method: "GET", postId: "1" }),
        invoke(down.create, { method: "POST", body: { title: "t", content: "c" } }),
        invoke(down.update, { method: "PUT", postId: "1", body: {} }),
        invoke(down.delete, { method: "DELETE", postId: "1" }),
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
  // 90 s: restarting Java mid-test alone can take most of the default 30 s on a busy machine.
  it("gives 500 promptly while storage is down and loses nothing acknowledged", async () => {
    const outcomes: Outcome[] = [];
    let phase: Outcome["phase"] = "before";
    const run = async (op: Outcome["op"], id?: number, body?: unknown) => {
      const started = performance.now();
      const handler = handlersOver(outageRepo)[op];
      const method = ({ create: "POST", update: "PUT", get: "GET", delete: "DELETE" } as const)[op];
      const seenPhase = phase;
      const result = await invoke(handler, { method, postId: id, body });
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
    const deletes = outcomes.filter((o) => o.op === "delete" && o.status === 204);
    const deleted = new Set(deletes.map((o) => o.id));
    const created = outcomes.filter((o) => o.op === "create" && o.status === 201);
    const admin = localClient(db!.endpoint);
    const items = await scanItems(admin, TABLE);
    admin.destroy();
    const stored = postsOf(items);
    const storedIds = new Set(stored.map((post) => post.id));
    for (const made of created) {
      const id = (made.body as { id: number }).id;
      expect(storedIds.has(id)).toBe(deleted.has(id) ? false : true);
    }
    expect(new Set(created.map((o) => (o.body as { id: number }).id)).size).toBe(created.length);

    // The counter never went back: it is at least every id it issued.
    const counter = items.find((item) => item.id === COUNTER_ID);
    expect(Number(counter?.last_id)).toBeGreaterThanOrEqual(Math.max(...storedIds));
    for (const post of stored) expect(post.updated_at! >= post.created_at!).toBe(true);
  }, 90_000);
});
