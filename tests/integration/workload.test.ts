// Integration: a mixed workload from several processes on one table, each one instance with its own
// list cache that lists while it writes; then the invariants that hold however operations interleave.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { serializePost } from "../../lib/posts/post.js";
import { type PostsTable, freshTable } from "../helpers/db.js";
import { forkedWorkers } from "../helpers/forked-workers.js";
import { POST_KEYS, SHOWN_TIMESTAMP, STORED_TIMESTAMP } from "../helpers/post-shape.js";
import type {
  Operation,
  OperationRecord,
  WorkerMessage,
  WorkerPlan,
} from "../helpers/workload-worker.js";

const WORKERS = 4;
/** Per worker; ids in 1..idRange, where the counter's ids also land. */
const PLAN = {
  operations: 150,
  lanes: 2,
  listLanes: 1,
  listPauseMs: 25,
  seed: 7,
  idRange: 300,
  timeLimitMs: 100_000,
  workers: WORKERS,
};

type Item = Record<string, unknown>;
type Post = { id: number; title: string; content: string };
let table: PostsTable;
let pool: Awaited<ReturnType<typeof forkedWorkers<WorkerPlan, WorkerMessage>>>;

beforeAll(async () => {
  table = await freshTable("workload");
  const entry = new URL("../helpers/workload-worker.ts", import.meta.url);
  pool = await forkedWorkers<WorkerPlan, WorkerMessage>(entry, table, PLAN.timeLimitMs + 30_000);
});
afterAll(async () => {
  await pool?.stop();
  await table?.drop();
});

const isPost = (value: unknown): value is Post => {
  if (typeof value !== "object" || value === null) return false;
  const post = value as Item;
  return (
    JSON.stringify(Object.keys(post).sort()) === JSON.stringify(POST_KEYS) &&
    Number.isSafeInteger(post.id) &&
    (post.id as number) > 0 &&
    typeof post.title === "string" &&
    typeof post.content === "string" &&
    [post.created_at, post.updated_at].every(
      (stamp) => stamp === null || (typeof stamp === "string" && SHOWN_TIMESTAMP.test(stamp)),
    )
  );
};

/** A refusal's or a delete's body: one `detail` (its text is the unit tests' to check). */
const isDetail = (value: unknown): boolean =>
  typeof value === "object" &&
  value !== null &&
  JSON.stringify(Object.keys(value)) === '["detail"]' &&
  typeof (value as { detail: unknown }).detail === "string";

/** Why a record's status or body is wrong for its operation, or undefined when it is right. */
function badAnswer(record: OperationRecord): string | undefined {
  const { op, status, body, id } = record;
  const allowed: Record<Operation, number[]> = {
    create: record.clientId ? [201, 409] : [201],
    update: [200, 404],
    delete: [204],
    get: [200, 404],
    list: [200],
  };
  if (!allowed[op].includes(status)) return `status ${status} not allowed`;
  if (op === "list") {
    const posts = record.listed ? undefined : body;
    if (posts && !(Array.isArray(posts) && posts.every(isPost))) return "not a list of posts";
    const ids = record.listed?.map(([postId]) => postId) ?? (body as Post[]).map((p) => p.id);
    return ids.some((postId, i) => i > 0 && postId <= ids[i - 1]!) ? "not ascending" : undefined;
  }
  if ([204, 404, 409].includes(status)) return isDetail(body) ? undefined : `${status} body`;
  if (!isPost(body) || body.id !== id) return "not the post asked for";
  if (record.sent?.title !== undefined && body.title !== record.sent.title) return "title not set";
  if (record.sent?.content !== undefined && body.content !== record.sent.content) {
    return "content not set";
  }
  return undefined;
}

it("keeps ids unique, creates durable and deletes final under concurrent workers", async () => {
  const processes = await Promise.all(Array.from({ length: WORKERS }, () => pool.start()));
  const barrier = await mkdtemp(join(tmpdir(), "workload-barrier-"));
  const reports = await Promise.all(
    processes.map((child, worker) => pool.run(child, { ...PLAN, worker, barrier })),
  );
  await rm(barrier, { recursive: true, force: true });
  const records = reports.flatMap((report) => report.records);
  const items = await table.items();
  const finalPosts = new Map(
    items.filter((item) => (item.id as number) > 0).map((item) => [item.id as number, item]),
  );
  const counterItem = items.find((item) => item.id === 0);

  const violations: string[] = [];
  const fail = (message: string, ...involved: unknown[]) => {
    if (violations.length < 25) violations.push(`${message} ${JSON.stringify(involved)}`);
  };

  // Every answer is one the rules allow, with a well-formed body.
  for (const record of records) {
    const problem = badAnswer(record);
    if (problem) fail(`answer: ${problem}`, record);
  }

  const byId = <T extends OperationRecord>(list: T[]) => {
    const map = new Map<number, T[]>();
    for (const record of list) map.set(record.id!, [...(map.get(record.id!) ?? []), record]);
    return map;
  };
  const created = records.filter((r) => r.op === "create" && r.status === 201);
  const creates = byId(created);
  const deletes = byId(records.filter((r) => r.op === "delete" && r.status === 204));
  /** Successful reads or updates of one id: gets, updates, and list entries. */
  const sightings: { id: number; record: OperationRecord; post: Post }[] = [];
  for (const record of records) {
    if (record.status !== 200 || record.op === "delete") continue;
    const posts =
      record.op === "list" ? ((record.body as Post[] | null) ?? []) : [record.body as Post];
    for (const post of posts) if (isPost(post)) sightings.push({ id: post.id, record, post });
  }
  const misses = records.filter((r) => (r.op === "get" || r.op === "update") && r.status === 404);

  // Ids are unique: the counter never issues an id twice, and no create lands on a live post.
  const counterIds = created.filter((r) => !r.clientId).map((r) => r.id!);
  if (new Set(counterIds).size !== counterIds.length) fail("counter issued an id twice");
  for (const [id, list] of creates) {
    const ordered = [...list].sort((a, b) => a.start - b.start);
    for (let i = 1; i < ordered.length; i++) {
      const [first, second] = [ordered[i - 1]!, ordered[i]!];
      const between = (deletes.get(id) ?? []).some(
        (d) => d.end > first.start && d.start < second.end,
      );
      if (!between) fail(`post #${id} created twice with no delete between`, first, second);
    }
  }

  // Every acknowledged create is stored, unless an acknowledged delete of its id could follow it.
  for (const record of created) {
    const deleted = (deletes.get(record.id!) ?? []).some((d) => d.end > record.start);
    if (!finalPosts.has(record.id!) && !deleted) fail(`created post #${record.id} lost`, record);
  }
  // ...and visible: a 404 after an acknowledged create needs a delete that could precede it.
  for (const miss of misses) {
    for (const create of creates.get(miss.id!) ?? []) {
      if (miss.start <= create.end) continue;
      const deleted = (deletes.get(miss.id!) ?? []).some(
        (d) => d.end > create.start && d.start < miss.end,
      );
      if (!deleted) fail(`post #${miss.id} missing after its create`, create, miss);
    }
  }

  // No deleted post comes back, unless a create of that id could follow the delete.
  const recreated = (id: number, after: OperationRecord, before?: OperationRecord) =>
    (creates.get(id) ?? []).some(
      (c) => c.end > after.start && (before === undefined || c.start < before.end),
    );
  for (const [id, list] of deletes) {
    for (const del of list) {
      for (const seen of sightings) {
        if (seen.id !== id || seen.record.start <= del.end) continue;
        if (!recreated(id, del, seen.record)) {
          fail(`post #${id} seen after its delete`, del, seen.record);
        }
      }
      if (finalPosts.has(id) && !recreated(id, del)) fail(`post #${id} stored after delete`, del);
    }
  }

  // Whatever was stored or seen was written by a successful create or update of that post.
  const written = new Map<number, { titles: Set<string>; contents: Set<string> }>();
  const writeStatus: Partial<Record<Operation, number>> = { create: 201, update: 200 };
  for (const record of records) {
    if (writeStatus[record.op] !== record.status) continue;
    const entry = written.get(record.id!) ?? { titles: new Set(), contents: new Set() };
    if (record.sent?.title !== undefined) entry.titles.add(record.sent.title);
    if (record.sent?.content !== undefined) entry.contents.add(record.sent.content);
    written.set(record.id!, entry);
  }
  const writtenBy = (post: { id: unknown; title: unknown; content: unknown }) => {
    const entry = written.get(post.id as number);
    return !!entry?.titles.has(post.title as string) && entry.contents.has(post.content as string);
  };
  for (const seen of sightings) {
    if (!writtenBy(seen.post)) fail(`post #${seen.id} seen with unwritten values`, seen.post);
  }
  for (const item of finalPosts.values()) {
    if (!writtenBy(item as Post)) fail(`post #${String(item.id)} stored with unwritten values`);
  }

  // Stored timestamps are exact instants, and updated_at never precedes created_at.
  for (const item of finalPosts.values()) {
    const { created_at: createdAt, updated_at: updatedAt } = item;
    const exact = [createdAt, updatedAt].every(
      (stamp) => typeof stamp === "string" && STORED_TIMESTAMP.test(stamp),
    );
    if (!exact || Date.parse(updatedAt as string) < Date.parse(createdAt as string)) {
      fail(`post #${String(item.id)} timestamps`, item);
    }
  }

  // Every list holds each write acknowledged before it began: a created or updated post is there
  // (with the title of that write, or of one of that post's writes not over before it began),
  // unless a delete of it may have landed first; a deleted post is not, unless a create may have.
  const listsOf = records.filter((r) => r.op === "list" && r.status === 200);
  const titled = records.filter(
    (r) => r.sent?.title !== undefined && [200, 201].includes(r.status),
  );
  const titledById = byId(titled);
  const acknowledged = [...titled, ...[...deletes.values()].flat()].sort((a, b) => a.end - b.end);
  for (const list of listsOf) {
    const pairs =
      list.listed ?? (list.body as Post[]).map((post) => [post.id, post.title] as const);
    const titles = new Map<number, string>(pairs);
    const overlaps = (write: OperationRecord, other: OperationRecord) =>
      other.end > write.start && other.start < list.end;
    for (const write of acknowledged) {
      if (write.end >= list.start) break;
      const id = write.id!;
      if (write.op === "delete") {
        const back = (creates.get(id) ?? []).some((c) => overlaps(write, c));
        if (titles.has(id) && !back) fail(`post #${id} listed after its delete`, write, list.start);
        continue;
      }
      if (!titles.has(id)) {
        const gone = (deletes.get(id) ?? []).some((d) => overlaps(write, d));
        if (!gone) fail(`post #${id} missing from a list after its ${write.op}`, write, list.start);
      } else {
        const allowed = (titledById.get(id) ?? []).filter((u) => u === write || overlaps(write, u));
        if (!allowed.some((u) => u.sent!.title === titles.get(id))) {
          fail(`post #${id} listed with a stale title`, write, titles.get(id));
        }
      }
    }
  }

  // The counter is storage only, and is at least the highest id it issued.
  const highest = Math.max(0, ...counterIds);
  const lastId = counterItem?.last_id;
  if (
    JSON.stringify(Object.keys(counterItem ?? {}).sort()) !== '["id","last_id"]' ||
    typeof lastId !== "number" ||
    lastId < highest
  ) {
    fail("counter item", counterItem, { highest });
  }

  // Each list took one path; after an instance's first lists, a list after writes was patched.
  const [scanned, patched, fromMemory] = (
    ["ListScanned", "ListPatched", "ListFromMemory"] as const
  ).map((path) => reports.reduce((sum, report) => sum + report.paths[path], 0));
  const truncated = reports.some((report) => report.truncated);
  expect(scanned! + patched! + fromMemory!).toBe(
    records.filter((r) => r.op === "list").length + WORKERS,
  );
  expect(scanned).toBeLessThanOrEqual(WORKERS * (PLAN.lanes + PLAN.listLanes));
  expect(patched).toBeGreaterThan(5 * scanned!);
  // Once every operation is over, every instance's list is what a fresh Scan builds.
  const fresh = JSON.stringify((await table.posts()).map(serializePost));
  for (const report of reports) expect(report.final).toBe(fresh);
  expect(reports.flatMap((report) => report.errors)).toEqual([]);
  expect(violations.join("\n"), "invariant violations").toBe("");
  expect(truncated, "every worker finished its operations in time").toBe(false);
  expect(records.filter((r) => r.lane >= 0)).toHaveLength(WORKERS * PLAN.operations);
}, 180_000);
