// Integration: DynamoDB Local stopped in the middle of a workload, then restarted on its files.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COUNTER_ID } from "../../lib/storage/posts-table.js";
import type { DynamoPostRepository } from "../../lib/storage/dynamo-repository.js";

import { ensureTable, localClient, startDynamoDbLocal } from "../../scripts/lib/dynamodb-local.mjs";
import { freePort } from "../../scripts/lib/ports.mjs";
import { connectStorage, localConfig, postsOf, scanItems } from "../helpers/db.js";
import { invoke, type Invocation } from "../helpers/events.js";
import { handlersOver } from "../helpers/handlers.js";

const TABLE = "outage-posts";
/** The functions' configured timeout (serverless.yml): no request may take longer. */
const FUNCTION_TIMEOUT_MS = 10_000;

let dataDir = "";
let port = 0;
let db: Awaited<ReturnType<typeof startDynamoDbLocal>> | undefined;
let repo: DynamoPostRepository;
let client: DynamoDBDocumentClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "blog-post-outage-"));
  port = await freePort();
  db = await startDynamoDbLocal({ port, dbPath: dataDir });
  const admin = localClient(db.endpoint);
  await ensureTable(admin, TABLE);
  admin.destroy();
  ({ client, repository: repo } = connectStorage(localConfig(db.endpoint, TABLE)));
});

afterAll(async () => {
  client?.destroy();
  await db?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface Outcome extends Invocation {
  op: "create" | "update" | "get" | "delete";
  id?: number;
  phase: "before" | "outage" | "after";
  ms: number;
}

describe("a storage outage", () => {
  it("gives 500 DB ERROR promptly while storage is down and loses nothing acknowledged", async () => {
    const outcomes: Outcome[] = [];
    let phase: Outcome["phase"] = "before";
    const run = async (op: Outcome["op"], id?: number, body?: unknown) => {
      const started = performance.now();
      const handler = handlersOver(repo)[op];
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
    db = await startDynamoDbLocal({ port, dbPath: dataDir });
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
    const counter = await client.send(
      new GetCommand({ TableName: TABLE, Key: { id: COUNTER_ID } }),
    );
    expect(Number(counter.Item?.last_id)).toBeGreaterThanOrEqual(Math.max(...storedIds));
    for (const post of stored) expect(post.updated_at! >= post.created_at!).toBe(true);
  });
});
