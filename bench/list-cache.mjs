// Bench section "list cache": the list handler answering an unchanged 10,000-post list from
// memory, and after a write (a miss), each beside a bare paginated Scan measured in the same run;
// DynamoDB calls per warm list; memory on a miss; what the change marker's ADD adds to each write.
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { gunzipSync } from "node:zlib";
import { apiEvent } from "../tests/helpers/api-event.mjs";
import { DELETE_BASE, LIMITS, TABLES, handlerCases, importHandler } from "./context.mjs";
import { lambdaEnv, seedTables } from "./context.mjs";
import { listInChild } from "./list.mjs";
import { expectStatus, log, mb, median, ratioRow, rounds, timed } from "./util.mjs";

/** @typedef {import("./list.mjs").ListRun} ListRun */

/** Writes go here, so the tables other sections count stay as they are. */
const WRITES_TABLE = "bench-list-cache-writes";
const COUNTS = { warmLists: 300, countedLists: 50, misses: 5, memoryRuns: 3, writes: 150 };
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
    const update = await importHandler("update-post", env, "list-cache");
    const event = apiEvent({ method: "GET", headers: { "accept-encoding": "gzip" } });
    const listed = () => expectStatus(list, event);

    log("list cache: warm lists, and the DynamoDB calls each makes");
    await listed(); // the first list: its body was built at init, as on a new instance
    const warm = /** @type {number[]} */ ([]);
    await rounds(COUNTS.warmLists, BUDGET_MS.warm, [0], async () => {
      warm.push(await timed(listed));
    });
    const callsByOperation = await countCalls(async () => {
      for (let i = 0; i < COUNTS.countedLists; i++) await listed();
    });

    log("list cache: lists after a write, beside bare Scans");
    const misses = { miss: /** @type {number[]} */ ([]), scan: /** @type {number[]} */ ([]) };
    await rounds(COUNTS.misses, BUDGET_MS.misses, [0], async (_, round) => {
      const title = `Post 1, take ${round}`;
      await expectStatus(update, apiEvent({ method: "PUT", postId: 1, body: { title } }));
      let body = "";
      misses.miss.push(await timed(async () => (body = await listed())));
      // Outside the timing: the answer must carry the write, or this was no miss.
      if (!gunzipSync(Buffer.from(body, "base64")).includes(title)) throw new Error("no miss");
      misses.scan.push(await timed(() => ctx.floor.list(TABLES.listBig)));
    });

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
    const miss = `${list} after a write (a miss), median of ${r.missRuns} (vs bare Scan)`;
    const rss = `${list} miss: peak RSS growth (vs JSON response size)`;
    const young = `  the same, --max-semi-space-size=${SMALL_SEMI_SPACE_MB} (vs JSON response size)`;
    return [
      ratioRow(warm, "list-posts", r.warmMs, r.scanMs, "ms", "<= 0.02x"),
      ratioRow(calls, "list-posts", r.callsPerList, 1, "calls", "<= 1 calls"),
      ratioRow(miss, "list-posts", r.missMs, r.scanMs, "ms", "<= 1.2x"),
      ratioRow(rss, "list-posts", mb(r.missRssGrowth), json, "MB", "<= 3x"),
      ratioRow(young, "list-posts", mb(r.missRssGrowthSmallYoung), json, "MB"),
      ...WRITES.map((op) => {
        const metric = `warm p50, ${op} (vs the write without the marker's ADD)`;
        return ratioRow(metric, `${op}-post`, r.writes[op].handler, r.writes[op].bare, "ms");
      }),
    ];
  },
};
