// Integration: the storage counts on each request's line, from the handlers over DynamoDB Local;
// of them only the list's path is a CloudWatch metric (list-cache.test.ts holds the list's paths).
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
function lastMetrics(): Record<string, unknown> {
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
/** The values a line names as CloudWatch metrics; the others are its fields only. */
const metricNames = (line: Record<string, unknown>) =>
  (line._aws as { CloudWatchMetrics: { Metrics: { Name: string }[] }[] }).CloudWatchMetrics.flatMap(
    (directive) => directive.Metrics.map((metric) => metric.Name),
  );

describe("a request's storage counts", () => {
  it("carry every route's units, all its calls summed; only the list's path is a metric", async () => {
    const units = () => {
      const line = lastMetrics();
      return { read: line.ReadUnits ?? 0, write: line.WriteUnits ?? 0 };
    };
    const made = await invoke(api.create, { method: "POST", body: { title: "u", content: "c" } });
    const id = (made.body as { id: number }).id;
    expect(metricNames(lastMetrics())).toEqual([]);
    expect(lastMetrics()).toMatchObject({ ServerErrors: 0 });
    // The counter's ADD, the put, the marker's ADD and slot: 1 unit each for a small post.
    expect(units()).toEqual({ read: 0, write: 4 });
    await invoke(api.get, { method: "GET", postId: id });
    expect(units()).toEqual({ read: 1, write: 0 });
    await invoke(api.update, { method: "PUT", postId: id, body: { title: "v" } });
    expect(units()).toEqual({ read: 0, write: 3 });
    await invoke(api.list, { method: "GET" }); // the first list scans, the next is from memory
    expect(units().read).toBeGreaterThan(1);
    await invoke(api.list, { method: "GET" });
    const list = lastMetrics();
    expect(metricNames(list)).toEqual(["ListFromMemory"]);
    expect(list).toMatchObject({ ListFromMemory: 1, ColdStart: 0, ClientErrors: 0 });
    // The change marker's shards, which the writes moved.
    expect(list.ReadUnits).toBeGreaterThan(0);
    await invoke(api.delete, { method: "DELETE", postId: id });
    expect(units()).toEqual({ read: 0, write: 3 });
    // A refusal before any storage call carries none.
    await invoke(api.get, { method: "GET", postId: "x" });
    expect(units()).toEqual({ read: 0, write: 0 });
  });

  it("count the ids a create skipped because clients had taken them", async () => {
    const first = await invoke(api.create, { method: "POST", body: { title: "t", content: "c" } });
    const next = (first.body as { id: number }).id + 1;
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
