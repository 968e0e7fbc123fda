// Integration: the storage counts in each request's metrics, from the handlers over DynamoDB Local:
// a list from memory and one by Scan, ids skipped past client-chosen ones, Idempotency-Key replays.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PostsTable, freshTable } from "../helpers/db.js";
import { emfProblems } from "../helpers/emf.js";
import { invoke } from "../helpers/events.js";
import { type Handlers, handlersOver, recordingLogger } from "../helpers/handlers.js";

let table: PostsTable;
let api: Handlers;
const { logger, lines } = recordingLogger();

beforeAll(async () => {
  table = await freshTable("metrics");
  api = handlersOver(table.repository, logger);
});
afterAll(async () => {
  await table.drop();
});

/** The metrics of the line the last request wrote. */
function lastMetrics() {
  const fields = lines.at(-1)?.fields ?? {};
  const line = { service: "blog-post-api", ...fields };
  expect(emfProblems(line)).toEqual([]);
  return line;
}

const STORAGE_COUNTS = [
  "ListFromMemory",
  "ListPatched",
  "ListScanned",
  "IdsSkipped",
  "IdempotentReplays",
];
const countsOf = (line: Record<string, unknown>) =>
  Object.fromEntries(
    STORAGE_COUNTS.filter((name) => name in line).map((name) => [name, line[name]]),
  );

describe("a request's storage counts", () => {
  it("show a list answered by Scan, then from memory, then patched after a write", async () => {
    await invoke(api.list, { method: "GET" });
    expect(countsOf(lastMetrics())).toEqual({ ListScanned: 1 });
    await invoke(api.list, { method: "GET" });
    expect(countsOf(lastMetrics())).toEqual({ ListFromMemory: 1 });
    await invoke(api.create, { method: "POST", body: { title: "t", content: "c" } });
    expect(countsOf(lastMetrics())).toEqual({});
    await invoke(api.list, { method: "GET" });
    expect(countsOf(lastMetrics())).toEqual({ ListPatched: 1 });
  });

  it("carry every route's read and write units, every DynamoDB call of the request summed", async () => {
    const units = () => {
      const line = lastMetrics() as Record<string, unknown>;
      return { read: line.ReadUnits ?? 0, write: line.WriteUnits ?? 0 };
    };
    const made = await invoke(api.create, { method: "POST", body: { title: "u", content: "c" } });
    const id = (made.body as { id: number }).id;
    // The counter's ADD, the put, the marker's ADD and slot: 1 unit each for a small post.
    expect(units()).toEqual({ read: 0, write: 4 });
    await invoke(api.get, { method: "GET", postId: id });
    expect(units()).toEqual({ read: 1, write: 0 });
    await invoke(api.update, { method: "PUT", postId: id, body: { title: "v" } });
    expect(units()).toEqual({ read: 0, write: 3 });
    await invoke(api.list, { method: "GET" });
    const { read } = units();
    expect(read).toBeGreaterThan(1);
    await invoke(api.delete, { method: "DELETE", postId: id });
    expect(units()).toEqual({ read: 0, write: 3 });
    // A refusal before any storage call carries none.
    await invoke(api.get, { method: "GET", postId: "x" });
    expect(units()).toEqual({ read: 0, write: 0 });
  });

  it("count the ids a create skipped because clients had taken them", async () => {
    const next =
      (
        (await invoke(api.create, { method: "POST", body: { title: "t", content: "c" } })).body as {
          id: number;
        }
      ).id + 1;
    // Taken: next, next + 1, next + 2. The counter issues next (taken), then skips ahead by 2 to
    // next + 2 (taken), then by 4: two ids found taken, and counted.
    for (const id of [next, next + 1, next + 2]) {
      await invoke(api.create, { method: "POST", body: { id, title: "taken", content: "c" } });
    }
    const made = await invoke(api.create, { method: "POST", body: { title: "t", content: "c" } });
    expect((made.body as { id: number }).id).toBeGreaterThan(next + 2);
    expect(countsOf(lastMetrics())).toEqual({ IdsSkipped: 2 });
  });

  it("count an Idempotency-Key replay, and only the replay", async () => {
    const request = {
      method: "POST" as const,
      body: { title: "once", content: "c" },
      headers: { "idempotency-key": "metrics-replay-1" },
    };
    expect((await invoke(api.create, request)).status).toBe(201);
    expect(countsOf(lastMetrics())).toEqual({});
    expect((await invoke(api.create, request)).status).toBe(201);
    expect(countsOf(lastMetrics())).toEqual({ IdempotentReplays: 1 });
  });
});
