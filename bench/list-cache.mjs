// Bench section "list cache": the production list handler answering an unchanged 10,000-post list
// from memory, and after a write (a miss), each beside a bare paginated Scan measured in the same
// run; DynamoDB calls per warm list (counted as node:http sends them); memory on a miss; what the
// marker advance adds to each write. One of the sections `npm run bench` runs (bench/run.mjs).
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { gunzipSync } from "node:zlib";
import { ensureTable, localClient } from "../scripts/dynamodb-local.mjs";
import { apiEvent } from "../scripts/api-event.mjs";
import { LIMITS, TABLES, benchDir, importHandler, lambdaEnv, staging } from "./context.mjs";
import { filler, log, median, ratioRow, rounds, runNode } from "./util.mjs";

const mb = (/** @type {number} */ bytes) => bytes / (1024 * 1024);
/** Runs `task(round)` up to `count` times within `budgetMs`. */
const bounded = (
  /** @type {number} */ count,
  /** @type {number} */ budgetMs,
  /** @type {(round: number) => Promise<void>} */ task,
) => rounds(count, budgetMs, [0], (_, round) => task(round));

/** @typedef {import("./floor.ts").Floor} Direct */
/** @typedef {import("./context.mjs").Handler} Handler */

/** Writes go here, so the tables other sections count stay as they are. */
const WRITES_TABLE = "bench-list-cache-writes";
const COUNTS = { warmLists: 300, countedLists: 50, misses: 5, memoryRuns: 3, writes: 150 };
const BUDGET_MS = { warm: 10_000, misses: 60_000, memory: 60_000, writes: 30_000 };
const GZIP = { "accept-encoding": "gzip" };
/** Semi-space size (MB) of the informational memory run; Node 20's default is 16. */
const SMALL_SEMI_SPACE_MB = 2;

/** How long `run` takes, in milliseconds. */
const timed = async (/** @type {() => Promise<unknown>} */ run) => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};

/** Calls a handler and fails the bench unless it answers `status`. */
const expectStatus = async (
  /** @type {Handler} */ handler,
  /** @type {ReturnType<typeof apiEvent>} */ event,
  /** @type {number} */ status,
) => {
  const response = await handler(event);
  if (response.statusCode !== status) {
    throw new Error(`answered ${response.statusCode}, not ${status}: ${response.body}`);
  }
  return response;
};

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

/** Posts 1..count of about 200 bytes in the writes table, for the deletes to remove. */
async function prepareWritesTable(/** @type {string} */ endpoint, /** @type {Direct} */ direct) {
  const admin = localClient(endpoint);
  try {
    await ensureTable(admin, WRITES_TABLE);
  } finally {
    admin.destroy();
  }
  const ids = Array.from({ length: 2 * COUNTS.writes + 2 }, (_, i) => i + 1);
  for (let i = 0; i < ids.length; i += 25) {
    await direct.batchPut(
      WRITES_TABLE,
      ids.slice(i, i + 25).map((id) => ({
        id,
        title: `t${id}`,
        content: filler(id, 200),
        created_at: null,
        updated_at: null,
      })),
    );
  }
}

/**
 * Measures the list cache on TABLES.listBig (seeded by prepareTables) and the writes' extra
 * round trip on a table of its own. Returns the raw figures.
 * @param {string} endpoint @param {Direct} direct
 */
async function measureListCache(endpoint, direct) {
  const env = lambdaEnv(endpoint, TABLES.listBig);
  const list = await importHandler("list-posts", env, "list-cache");
  const update = await importHandler("update-post", env, "list-cache");
  const event = apiEvent({ method: "GET", headers: GZIP });

  log("list cache: warm lists");
  await expectStatus(list, event, 200); // the miss that fills the cache
  /** @type {number[]} */
  const warm = [];
  await bounded(COUNTS.warmLists, BUDGET_MS.warm, async () => {
    warm.push(await timed(() => expectStatus(list, event, 200)));
  });

  log("list cache: DynamoDB calls per warm list");
  const callsByOperation = await countCalls(async () => {
    for (let i = 0; i < COUNTS.countedLists; i++) await expectStatus(list, event, 200);
  });
  const calls = Object.values(callsByOperation).reduce((a, b) => a + b, 0);

  log("list cache: lists after a write, beside bare Scans");
  /** @type {{ miss: number[], scan: number[] }} */
  const misses = { miss: [], scan: [] };
  await bounded(COUNTS.misses, BUDGET_MS.misses, async (round) => {
    const change = apiEvent({ method: "PUT", postId: 1, body: { title: `Post 1, take ${round}` } });
    await expectStatus(update, change, 200);
    /** @type {any} */
    let response;
    const missMs = await timed(async () => {
      response = await expectStatus(list, event, 200);
    });
    // Outside the timing: the answer must carry the write, or this was no miss.
    const json = gunzipSync(Buffer.from(response.body, "base64")).toString("utf8");
    if (!json.includes(`Post 1, take ${round}`)) throw new Error("a miss missed the write");
    const scanMs = await timed(() => direct.list(TABLES.listBig));
    misses.miss.push(missMs);
    misses.scan.push(scanMs);
  });

  log("list cache: memory on a miss (fresh processes)");
  /** @type {{ rssGrowth: number, responseBytes: number }[]} */
  const memory = [];
  /** @type {{ rssGrowth: number, responseBytes: number }[]} */
  const smallYoung = [];
  const args = [`${benchDir}/list-child.mjs`, "handler", `${staging}/list-posts/index.mjs`];
  await bounded(COUNTS.memoryRuns, BUDGET_MS.memory, async () => {
    const run = await runNode(["--expose-gc", ...args], env, LIMITS.childTimeoutMs * 2);
    memory.push(run.report);
    // The same miss with V8's young generation capped: how much of the peak is page garbage
    // waiting for a scavenge (NODE_OPTIONS could set this on Lambda).
    const capped = ["--expose-gc", `--max-semi-space-size=${SMALL_SEMI_SPACE_MB}`, ...args];
    const small = await runNode(capped, env, LIMITS.childTimeoutMs * 2);
    smallYoung.push(small.report);
  });

  log("list cache: writes beside today's calls");
  await prepareWritesTable(endpoint, direct);
  const writesEnv = lambdaEnv(endpoint, WRITES_TABLE);
  // Instances of their own: a bundle reads TABLE_NAME once, and the update above reads the big table.
  const handlers = {
    create: await importHandler("create-post", writesEnv, "list-cache-writes"),
    update: await importHandler("update-post", writesEnv, "list-cache-writes"),
    delete: await importHandler("delete-post", writesEnv, "list-cache-writes"),
  };
  /** @type {Record<"create" | "update" | "delete", { handler: number[], bare: number[] }>} */
  const writes = {
    create: { handler: [], bare: [] },
    update: { handler: [], bare: [] },
    delete: { handler: [], bare: [] },
  };
  const fields = (/** @type {number} */ i) => ({ title: `w${i}`, content: filler(i, 200) });
  await bounded(COUNTS.writes, BUDGET_MS.writes, async (i) => {
    const body = fields(i);
    writes.create.handler.push(
      await timed(() => expectStatus(handlers.create, apiEvent({ method: "POST", body }), 201)),
    );
    writes.create.bare.push(await timed(() => direct.withoutMarker.create(WRITES_TABLE, body)));
    const put = apiEvent({ method: "PUT", postId: 1, body: { title: `u${i}` } });
    writes.update.handler.push(await timed(() => expectStatus(handlers.update, put, 200)));
    writes.update.bare.push(
      await timed(() => direct.withoutMarker.update(WRITES_TABLE, 2, { title: `u${i}` })),
    );
    const remove = apiEvent({ method: "DELETE", postId: 3 + 2 * i });
    writes.delete.handler.push(await timed(() => expectStatus(handlers.delete, remove, 204)));
    writes.delete.bare.push(
      await timed(() => direct.withoutMarker.remove(WRITES_TABLE, 4 + 2 * i)),
    );
  });

  const result = {
    warmMs: median(warm),
    warmRuns: warm.length,
    callsPerList: calls / COUNTS.countedLists,
    callsByOperation,
    missMs: median(misses.miss),
    scanMs: median(misses.scan),
    missRuns: misses.miss.length,
    missRssGrowth: median(memory.map((m) => m.rssGrowth)),
    missRssGrowthSmallYoung: median(smallYoung.map((m) => m.rssGrowth)),
    jsonBytes: median(memory.map((m) => m.responseBytes)),
    writes: Object.fromEntries(
      Object.entries(writes).map(([op, w]) => [
        op,
        { handler: median(w.handler), bare: median(w.bare) },
      ]),
    ),
  };
  return result;
}

/** The table rows for measureListCache's figures. */
function listCacheRows(/** @type {any} */ r) {
  const posts = LIMITS.list.posts;
  return [
    ratioRow({
      metric: `list ${posts} warm, table unchanged, p50 of ${r.warmRuns} (vs bare paginated Scan)`,
      name: "list-posts",
      value: r.warmMs,
      floor: r.scanMs,
      unit: "ms",
      target: "<= 0.02x",
    }),
    ratioRow({
      metric: `DynamoDB calls per warm list (${JSON.stringify(r.callsByOperation)})`,
      name: "list-posts",
      value: r.callsPerList,
      floor: 1,
      unit: "calls",
      target: "<= 1 calls",
    }),
    ratioRow({
      metric: `list ${posts} after a write (a miss), median of ${r.missRuns} (vs bare Scan)`,
      name: "list-posts",
      value: r.missMs,
      floor: r.scanMs,
      unit: "ms",
      target: "<= 1.2x",
    }),
    ratioRow({
      metric: `list ${posts} miss: peak RSS growth (vs JSON response size)`,
      name: "list-posts",
      value: mb(r.missRssGrowth),
      floor: mb(r.jsonBytes),
      unit: "MB",
      target: "<= 3x",
    }),
    ratioRow({
      metric: `  the same, --max-semi-space-size=${SMALL_SEMI_SPACE_MB} (vs JSON response size)`,
      name: "list-posts",
      value: mb(r.missRssGrowthSmallYoung),
      floor: mb(r.jsonBytes),
      unit: "MB",
    }),
    ...["create", "update", "delete"].map((op) =>
      ratioRow({
        metric: `warm p50, ${op} (vs the write without the marker's ADD)`,
        name: `${op}-post`,
        value: r.writes[op].handler,
        floor: r.writes[op].bare,
        unit: "ms",
      }),
    ),
  ];
}

/** @type {import("./context.mjs").Section} */
export const listCache = {
  title: "list cache: warm lists, misses, memory, writes",
  measure: ({ endpoint, floor }) => measureListCache(endpoint, floor),
  rows: listCacheRows,
};
