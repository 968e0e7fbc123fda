// Bench section "list cache": the list handler answering an unchanged 10,000-post list from
// memory, and after 1 and 100 writes (patched), each beside a bare paginated Scan measured in the
// same run, in time and in read units; DynamoDB calls per warm list; memory on a new instance's
// Scan; what the change marker's ADD and slot add to each write.
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { apiEvent } from "../tests/helpers/api-event.mjs";
import { DELETE_BASE, LIMITS, TABLES, handlerCases, importHandler } from "./context.mjs";
import { lambdaEnv, seedTables } from "./context.mjs";
import { listInChild } from "./list.mjs";
import { expectStatus, log, mb, median, ratioRow, rounds, timed } from "./util.mjs";

/** @typedef {import("./list.mjs").ListRun} ListRun */

/** Writes go here, so the tables other sections count stay as they are. */
const WRITES_TABLE = "bench-list-cache-writes";
const COUNTS = {
  warmLists: 300,
  countedLists: 50,
  misses: 5,
  manyWrites: 100,
  manyRounds: 3,
  memoryRuns: 3,
  writes: 150,
};
const BUDGET_MS = { warm: 10_000, misses: 60_000, memory: 60_000, writes: 30_000 };
/** Semi-space size (MB) of the informational memory run; Node 20's default is 16. */
const SMALL_SEMI_SPACE_MB = 2;
const WRITES = /** @type {const} */ (["create", "update", "delete"]);

/** The DynamoDB calls this process sends while `run` runs, by operation. */
async function countCalls(/** @type {() => Promise<void>} */ run) {
  /** @type {Record<string, number>} */
  const counts = {};
  const count = (/** @type {any} */ { request }) => {
    const operation = String(request.getHeader("x-amz-target")).split(".").at(-1) ?? "?";
    counts[operation] = (counts[operation] ?? 0) + 1;
  };
  subscribe("http.client.request.start", count);
  try {
    await run();
  } finally {
    unsubscribe("http.client.request.start", count);
  }
  return counts;
}

/** The ReadUnits of the log line a handler writes while `run` runs (its instance logs at info). */
async function readUnitsOf(/** @type {() => Promise<unknown>} */ run) {
  const lines = /** @type {string[]} */ ([]);
  const write = process.stdout.write;
  process.stdout.write = /** @type {any} */ (
    (/** @type {unknown} */ chunk) => {
      lines.push(String(chunk));
      return true;
    }
  );
  try {
    await run();
  } finally {
    process.stdout.write = write;
  }
  const units = lines.map((line) => /** @type {{ ReadUnits?: number }} */ (JSON.parse(line)));
  return units.find((line) => line.ReadUnits !== undefined)?.ReadUnits ?? NaN;
}

/** Each write through its handler and through the floor without the marker's ADD: medians. */
async function measureWrites(/** @type {import("./context.mjs").Context} */ { endpoint, floor }) {
  const posts = DELETE_BASE.listCache + 2 * COUNTS.writes + 2; // each round deletes twice
  await seedTables(endpoint, floor, [[WRITES_TABLE, 1, posts, 200]]);
  const cases = handlerCases("listCache", WRITES_TABLE);
  const withoutMarker = { ...floor, ...floor.withoutMarker };
  const env = lambdaEnv(endpoint, WRITES_TABLE);
  const sides = await Promise.all(
    WRITES.map(async (op) => ({
      op,
      // Instances of their own: a bundle reads TABLE_NAME once, and `measure`'s read the big table.
      handler: await importHandler(`${op}-post`, env, "list-cache-writes"),
      ...cases[`${op}-post`],
      handlerMs: /** @type {number[]} */ ([]),
      bareMs: /** @type {number[]} */ ([]),
    })),
  );
  await rounds(COUNTS.writes, BUDGET_MS.writes, [0], async (_, i) => {
    for (const { handler, event, status, floor: bare, handlerMs, bareMs } of sides) {
      const request = event(i);
      handlerMs.push(await timed(() => expectStatus(handler, request, status)));
      bareMs.push(await timed(() => bare(withoutMarker, i)));
    }
  });
  const medians = sides.map((s) => [
    s.op,
    { handler: median(s.handlerMs), bare: median(s.bareMs) },
  ]);
  return Object.fromEntries(medians);
}

/** @type {import("./context.mjs").Section} */
export const listCache = {
  title: "list cache: warm lists, misses, memory, writes",
  async measure(ctx) {
    const env = lambdaEnv(ctx.endpoint, TABLES.listBig);
    const list = await importHandler("list-posts", env, "list-cache");
    const event = apiEvent({ method: "GET", headers: { "accept-encoding": "gzip" } });
    const listed = () => expectStatus(list, event);
    const identity = apiEvent({ method: "GET", headers: { "accept-encoding": "identity" } });
    // The same list in an instance of its own that logs, for each list's ReadUnits.
    const counted = await importHandler("list-posts", { ...env, LOG_LEVEL: "info" }, "units");
    const listedUnits = () => readUnitsOf(() => expectStatus(counted, identity));
    const update = await importHandler("update-post", env, "list-cache");
    await listedUnits();

    log("list cache: warm lists, and the DynamoDB calls each makes");
    await listed(); // the first list: its body was built at init, as on a new instance
    const warm = /** @type {number[]} */ ([]);
    await rounds(COUNTS.warmLists, BUDGET_MS.warm, [0], async () => {
      warm.push(await timed(listed));
    });
    const callsByOperation = await countCalls(async () => {
      for (let i = 0; i < COUNTS.countedLists; i++) await listed();
    });

    log("list cache: lists after 1 and 100 writes, beside bare Scans");
    const retitle = (/** @type {number} */ id, /** @type {string} */ title) =>
      expectStatus(update, apiEvent({ method: "PUT", postId: id, body: { title } }));
    /** @type {Record<"unchanged" | "one" | "oneGzip" | "many" | "manyGzip" | "scan" | "units1" | "units100", number[]>} */
    const after = {
      unchanged: [],
      one: [],
      oneGzip: [],
      many: [],
      manyGzip: [],
      scan: [],
      units1: [],
      units100: [],
    };
    const patched = async (/** @type {string} */ title, /** @type {number[]} */ ms) => {
      /** @type {string} */
      let body = "";
      ms.push(await timed(async () => (body = await expectStatus(list, identity))));
      // Outside the timing: the answer must carry the write, or nothing was patched.
      if (!body.includes(title)) throw new Error("the list missed a write");
    };
    await rounds(COUNTS.misses, BUDGET_MS.misses, [0], async (_, round) => {
      const title = `Post 1, take ${round}`;
      after.unchanged.push(await timed(() => expectStatus(list, identity)));
      await retitle(1, title);
      await patched(title, after.one);
      after.units1.push(await listedUnits());
      await retitle(1, `${title}, gzipped`);
      after.oneGzip.push(await timed(listed));
      await listedUnits(); // the counting instance catches up, so each round counts its own writes
      after.scan.push(await timed(() => ctx.floor.list(TABLES.listBig)));
    });
    await rounds(COUNTS.manyRounds, BUDGET_MS.misses, [0], async (_, round) => {
      const title = (/** @type {number} */ id) => `Post ${id}, round ${round} of many`;
      for (let id = 1; id <= COUNTS.manyWrites; id++) await retitle(id, title(id));
      await patched(title(COUNTS.manyWrites), after.many);
      after.units100.push(await listedUnits());
      for (let id = 1; id <= COUNTS.manyWrites; id++) await retitle(id, `${title(id)}, gzipped`);
      after.manyGzip.push(await timed(listed));
      await listedUnits();
    });
    const scanUnits = await ctx.floor.scanUnits(TABLES.listBig);
    const misses = { miss: after.one, scan: after.scan };

    log("list cache: memory on a miss (fresh processes)");
    const memory = {
      plain: /** @type {ListRun[]} */ ([]),
      smallYoung: /** @type {ListRun[]} */ ([]),
    };
    await rounds(COUNTS.memoryRuns, BUDGET_MS.memory, [0], async () => {
      memory.plain.push(await listInChild("handler", env));
      // The same miss with V8's young generation capped: how much of the peak is page garbage
      // waiting for a scavenge (NODE_OPTIONS could set this on Lambda).
      const capped = [`--max-semi-space-size=${SMALL_SEMI_SPACE_MB}`];
      memory.smallYoung.push(await listInChild("handler", env, capped));
    });

    log("list cache: writes beside the same writes without the marker's ADD");
    const writes = await measureWrites(ctx);
    const calls = Object.values(callsByOperation).reduce((a, b) => a + b, 0);
    return {
      warmMs: median(warm),
      warmRuns: warm.length,
      callsPerList: calls / COUNTS.countedLists,
      callsByOperation,
      missMs: median(misses.miss),
      unchangedIdentityMs: median(after.unchanged),
      missGzipMs: median(after.oneGzip),
      manyMs: median(after.many),
      manyGzipMs: median(after.manyGzip),
      manyRuns: after.many.length,
      units1: median(after.units1),
      units100: median(after.units100),
      scanUnits,
      scanMs: median(misses.scan),
      missRuns: misses.miss.length,
      missRssGrowth: median(memory.plain.map((m) => m.rssGrowth)),
      missRssGrowthSmallYoung: median(memory.smallYoung.map((m) => m.rssGrowth)),
      jsonBytes: median(memory.plain.map((m) => m.responseBytes)),
      writes,
    };
  },
  rows(/** @type {any} */ r) {
    const [list, json] = [`list ${LIMITS.list.posts}`, mb(r.jsonBytes)];
    const warm = `${list} warm, table unchanged, p50 of ${r.warmRuns} (vs bare paginated Scan)`;
    const calls = `DynamoDB calls per warm list (${JSON.stringify(r.callsByOperation)})`;
    const miss = `${list} after 1 write, patched, median of ${r.missRuns} (vs bare Scan)`;
    const missVsUnchanged = `  the same (vs the unchanged list, identity: a buffered answer joins it)`;
    const missGzip = `  the same, gzipped: the whole list compressed again (vs bare Scan)`;
    const many = `${list} after ${COUNTS.manyWrites} writes, median of ${r.manyRuns} (vs bare Scan)`;
    const manyGzip = `  the same, gzipped (vs bare Scan)`;
    const units = (/** @type {number} */ k) =>
      `${list} after ${k} write(s): read units (vs a Scan's)`;
    const rss = `${list} new instance's Scan: peak RSS growth (vs JSON response size)`;
    const young = `  the same, --max-semi-space-size=${SMALL_SEMI_SPACE_MB} (vs JSON response size)`;
    return [
      ratioRow(warm, "list-posts", r.warmMs, r.scanMs, "ms", "<= 0.02x"),
      ratioRow(calls, "list-posts", r.callsPerList, 1, "calls", "<= 1 calls"),
      ratioRow(miss, "list-posts", r.missMs, r.scanMs, "ms", "<= 0.05x"),
      ratioRow(missVsUnchanged, "list-posts", r.missMs, r.unchangedIdentityMs, "ms", "<= 1.5x"),
      ratioRow(missGzip, "list-posts", r.missGzipMs, r.scanMs, "ms"),
      ratioRow(many, "list-posts", r.manyMs, r.scanMs, "ms"),
      ratioRow(manyGzip, "list-posts", r.manyGzipMs, r.scanMs, "ms"),
      ratioRow(units(1), "list-posts", r.units1, r.scanUnits, "units", "<= 0.01x"),
      ratioRow(units(COUNTS.manyWrites), "list-posts", r.units100, r.scanUnits, "units"),
      ratioRow(rss, "list-posts", mb(r.missRssGrowth), json, "MB", "<= 3x"),
      ratioRow(young, "list-posts", mb(r.missRssGrowthSmallYoung), json, "MB"),
      ...WRITES.map((op) => {
        const metric = `warm p50, ${op} (vs the write without the marker's ADD and slot)`;
        return ratioRow(metric, `${op}-post`, r.writes[op].handler, r.writes[op].bare, "ms");
      }),
    ];
  },
};
