// Integration: several processes, each an instance with its own list cache, write and list one
// table at once; every list must reflect every write acknowledged before it began, and once the
// writes are over every instance's list is byte for byte what a fresh Scan builds.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { serializePost } from "../../lib/posts/post.js";
import { type PostsTable, freshTable } from "../helpers/db.js";
import { forkedWorkers } from "../helpers/forked-workers.js";
import type {
  ListWorkerMessage,
  ListWorkerPlan,
  ListWorkerRecord,
} from "../helpers/list-cache-worker.js";

const WORKERS = 3;
const WRITES_PER_WORKER = 60;
const PAUSE_MS = 40;
const LIST_LANES = 2;
const REPORT_TIMEOUT_MS = 60_000;

let table: PostsTable;
let pool: Awaited<ReturnType<typeof forkedWorkers<ListWorkerPlan, ListWorkerMessage>>>;

beforeAll(async () => {
  table = await freshTable("list-cache-workload");
  const entry = new URL("../helpers/list-cache-worker.ts", import.meta.url);
  pool = await forkedWorkers<ListWorkerPlan, ListWorkerMessage>(entry, table, REPORT_TIMEOUT_MS);
});
afterAll(async () => {
  await pool?.stop();
  await table?.drop();
});

it("never answers a list that misses a write acknowledged before it began", async () => {
  const processes = await Promise.all(Array.from({ length: WORKERS }, () => pool.start()));
  const barrier = await mkdtemp(join(tmpdir(), "list-barrier-"));
  const reports = await Promise.all(
    processes.map((child, worker) =>
      pool.run(child, {
        worker,
        writes: WRITES_PER_WORKER,
        pauseMs: PAUSE_MS,
        listLanes: LIST_LANES,
        seed: 11,
        barrier,
        workers: WORKERS,
      }),
    ),
  );
  await rm(barrier, { recursive: true, force: true });
  const records = reports.flatMap((report) => report.records);
  const writes = records.filter((r) => r.op !== "list");
  const lists = records.filter((r) => r.op === "list");
  const violations: string[] = [];
  const fail = (message: string, ...involved: unknown[]) => {
    if (violations.length < 20) violations.push(`${message} ${JSON.stringify(involved)}`);
  };
  const checks = { present: 0, deletes: 0, updates: 0 };

  const expectedStatus = { create: 201, update: 200, delete: 204, list: 200 };
  for (const record of records) {
    if (record.status !== expectedStatus[record.op]) fail("unexpected status", record);
  }
  const writesOn = (id: number, op: ListWorkerRecord["op"]) =>
    writes.filter((w) => w.id === id && w.op === op);

  for (const list of lists) {
    const ids = (list.posts ?? []).map(([id]) => id);
    if (ids.some((id, i) => id <= 0 || (i > 0 && id <= ids[i - 1]!))) fail("list order", ids);
    const titles = new Map(list.posts ?? []);
    /** A delete of `id` that may have landed before this list ended. */
    const mayBeDeleted = (id: number) => writesOn(id, "delete").some((d) => d.start < list.end);
    for (const write of writes) {
      if (write.end >= list.start) continue; // not acknowledged before the list began
      const id = write.id!;
      if (write.op === "delete") {
        checks.deletes++;
        if (titles.has(id)) fail(`post #${id} listed after its delete was acknowledged`, write);
      } else {
        checks.present++;
        if (!titles.has(id)) {
          if (!mayBeDeleted(id)) fail(`post #${id} missing after its ${write.op}`, write);
        } else if (write.op === "update") {
          checks.updates++;
          // Its title, or that of an update of the same post not over before this one began.
          const allowed = writesOn(id, "update")
            .filter((u) => u === write || (u.end > write.start && u.start < list.end))
            .map((u) => u.title);
          if (!allowed.includes(titles.get(id))) fail(`post #${id} lists a stale title`, write);
        }
      }
    }
  }

  const total = (path: "ListScanned" | "ListPatched" | "ListFromMemory") =>
    reports.reduce((sum, report) => sum + report.paths[path], 0);
  const [scans, patched, fromMemory] = [
    total("ListScanned"),
    total("ListPatched"),
    total("ListFromMemory"),
  ];
  console.log(
    `list-cache workload: ${writes.length} writes, ${lists.length} lists from ${WORKERS} ` +
      `processes; ${scans} lists scanned, ${patched} patched, ${fromMemory} from memory; ` +
      `checked ${checks.present} acknowledged creates and updates present, ${checks.deletes} ` +
      `deletes absent, ${checks.updates} updated titles; violations: ${violations.length}`,
  );
  expect(violations.join("\n")).toBe("");
  expect(writes).toHaveLength(WORKERS * WRITES_PER_WORKER);
  // Each list took one path (the last list of each worker included); only an instance's first
  // lists, one per lane at most, scanned: every other list after a write was patched.
  expect(scans + patched + fromMemory).toBe(lists.length + WORKERS);
  expect(scans).toBeLessThanOrEqual(WORKERS * LIST_LANES);
  expect(patched).toBeGreaterThan(10 * scans);
  // Once the writes are over, every instance's list is what a fresh Scan builds.
  const fresh = JSON.stringify((await table.posts()).map(serializePost));
  for (const report of reports) expect(report.final).toBe(fresh);
}, 120_000);
