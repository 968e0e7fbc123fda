// Integration: several processes, each an instance with its own list cache, write and list one
// table at once; every list must reflect every write acknowledged before it began.
import { afterAll, beforeAll, expect, it } from "vitest";
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
  const reports = await Promise.all(
    processes.map((child, worker) =>
      pool.run(child, {
        worker,
        writes: WRITES_PER_WORKER,
        pauseMs: PAUSE_MS,
        listLanes: LIST_LANES,
        seed: 11,
      }),
    ),
  );
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

  const scans = reports.reduce((sum, report) => sum + report.scans, 0);
  const markerReads = reports.reduce((sum, report) => sum + report.markerReads, 0);
  console.log(
    `list-cache workload: ${writes.length} writes, ${lists.length} lists from ${WORKERS} ` +
      `processes; ${scans} lists scanned, ${lists.length - scans} answered from memory; ` +
      `${markerReads} marker reads; checked ${checks.present} acknowledged creates and updates ` +
      `present, ${checks.deletes} deletes absent, ${checks.updates} updated titles; ` +
      `violations: ${violations.length}`,
  );
  expect(violations.join("\n")).toBe("");
  expect(writes).toHaveLength(WORKERS * WRITES_PER_WORKER);
  // Both paths ran: some lists scanned after a write, others came from memory.
  expect(scans).toBeGreaterThan(0);
  expect(scans).toBeLessThan(lists.length);
  // One marker read per list, and one more after each Scan.
  expect(markerReads).toBe(lists.length + scans);
}, 120_000);
