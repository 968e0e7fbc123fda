// Bench sections "list cache": the list handler answering an unchanged 10,000-post list from
// memory, and after 1 and 100 writes (patched), each beside a bare paginated Scan measured in the
// same run, in time and in read units; DynamoDB calls per warm list; memory on a new instance's
// Scan; what the change marker's ADD and slot add to each write. "listCacheLarge", run only when
// named (`--only listCacheLarge`), measures the same lists over 100,000 posts, and a new
// instance's first list.
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { Writable } from "node:stream";
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
/** The large table: its posts (of about 1 KB, as the 10,000), its rounds, and its seeding's time. */
const LARGE = {
  table: "bench-list-100k",
  posts: 100_000,
  warmLists: 20,
  misses: 3,
  manyRounds: 2,
  budgetMs: 300_000,
  seedBudgetMs: 900_000,
};
/** What a list's context gives the handler: time left, as Lambda's does (the function's 180 s). */
const LIST_CONTEXT = { getRemainingTimeInMillis: () => 180_000 };
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

/**
 * A list instance streamed as on Lambda (lib/http/stream.ts), into a stream that takes every write
 * at once and keeps a reference to it: no network, no copy. It answers the prelude's status and
 * the pieces written.
 * @returns {Promise<(event: import("./context.mjs").ApiEvent) => Promise<{ statusCode: number, body: Buffer[] }>>}
 */
async function importStreamed(/** @type {Record<string, string>} */ env, instance = "") {
  let status = 0;
  /** @type {Buffer[]} */
  let written = [];
  const sink = () =>
    new Writable({
      write(chunk, _, done) {
        written.push(chunk);
        done();
      },
    });
  const awslambda = {
    streamifyResponse: (/** @type {Function} */ run) => async (/** @type {unknown} */ event) => {
      written = [];
      await run(event, sink(), LIST_CONTEXT);
      return { statusCode: status, body: written };
    },
    HttpResponseStream: {
      from: (/** @type {Writable} */ stream, /** @type {{ statusCode: number }} */ prelude) => {
        status = prelude.statusCode;
        return stream;
      },
    },
  };
  // Only while this bundle loads: it reads the global once, when it builds its handler.
  Object.assign(globalThis, { awslambda });
  try {
    return /** @type {any} */ (await importHandler("list-posts", env, `streamed-${instance}`));
  } finally {
    delete (/** @type {any} */ (globalThis).awslambda);
  }
}

/**
 * A handler called with the list function's time left, as on Lambda: without a context a handler
 * assumes 10 s, less than a Scan of 100,000 posts takes here.
 * @param {import("./context.mjs").Handler} handler @returns {import("./context.mjs").Handler}
 */
const withTime = (handler) => (event) => /** @type {any} */ (handler)(event, LIST_CONTEXT);

/** The list instances a measurement of lists after writes uses, over `table`. */
async function listInstances(/** @type {string} */ endpoint, /** @type {string} */ table) {
  const env = lambdaEnv(endpoint, table);
  const streamed = await importStreamed(env, table);
  const buffered = withTime(await importHandler("list-posts", env, `buffered-${table}`));
  // The same list in an instance of its own that logs, for each list's ReadUnits.
  const logging = { ...env, LOG_LEVEL: "info" };
  const counted = withTime(await importHandler("list-posts", logging, `units-${table}`));
  const update = await importHandler("update-post", env, `list-cache-${table}`);
  return { env, streamed, buffered, counted, update };
}

const IDENTITY = apiEvent({ method: "GET", headers: { "accept-encoding": "identity" } });
const GZIP = apiEvent({ method: "GET", headers: { "accept-encoding": "gzip" } });

/**
 * Lists after 1 and after 100 writes, each beside the same instance's unchanged list and a bare
 * Scan, in time and read units: the streamed answer (as on Lambda) is the one with targets; the
 * buffered one (which joins the whole list into one string) and the gzipped one (which compresses
 * the whole list again) are shown apart.
 * @param {import("./context.mjs").Context} ctx @param {Awaited<ReturnType<typeof listInstances>>} lists
 * @param {string} table @param {{ misses: number, manyRounds: number, budgetMs: number }} counts
 */
async function measureAfterWrites(ctx, lists, table, counts) {
  const { streamed, buffered, counted, update } = lists;
  const units = () => readUnitsOf(() => expectStatus(counted, IDENTITY));
  // Each instance lists once to apply the last round's writes; the buffered one last, just
  // before its own timed list, so that the garbage of its whole-list string is not collected
  // during the streamed one's.
  const catchUp = async () => {
    await streamed(IDENTITY);
    await units();
  };
  const retitle = (/** @type {number} */ id, /** @type {string} */ title) =>
    expectStatus(update, apiEvent({ method: "PUT", postId: id, body: { title } }));
  /** @type {Record<string, number[]>} */
  const after = {};
  const keep = (/** @type {string} */ key, /** @type {number} */ value) =>
    (after[key] ??= []).push(value);
  const timedList = async (/** @type {string} */ key, /** @type {string | undefined} */ title) => {
    const started = performance.now();
    const { statusCode, body } = await streamed(title === undefined ? GZIP : IDENTITY);
    keep(key, performance.now() - started);
    // Outside the timing: the answer must carry the write, or nothing was patched.
    if (statusCode !== 200) throw new Error(`the streamed list answered ${statusCode}`);
    if (title && !Buffer.concat(body).includes(title)) {
      throw new Error("the list missed a write");
    }
  };
  const timedBuffered = async (/** @type {string} */ key, /** @type {string} */ title) => {
    /** @type {string} */
    let body = "";
    keep(key, await timed(async () => (body = await expectStatus(buffered, IDENTITY))));
    if (!body.includes(title)) throw new Error("the buffered list missed a write");
  };
  await rounds(counts.misses, counts.budgetMs, [0], async (_, round) => {
    const title = `Post 1, take ${round}`;
    await catchUp();
    await timedList("unchanged", "");
    await expectStatus(buffered, IDENTITY);
    keep("unchangedBuffered", await timed(() => expectStatus(buffered, IDENTITY)));
    await retitle(1, title);
    await timedList("one", title);
    await timedBuffered("oneBuffered", title);
    keep("units1", await units());
    await retitle(1, `${title}, gzipped`);
    await timedList("oneGzip", undefined);
    keep("scan", await timed(() => ctx.floor.list(table)));
  });
  await rounds(counts.manyRounds, counts.budgetMs, [0], async (_, round) => {
    const title = (/** @type {number} */ id) => `Post ${id}, round ${round} of many`;
    await catchUp();
    await expectStatus(buffered, IDENTITY);
    for (let id = 1; id <= COUNTS.manyWrites; id++) await retitle(id, title(id));
    await timedList("many", title(COUNTS.manyWrites));
    await timedBuffered("manyBuffered", title(COUNTS.manyWrites));
    keep("units100", await units());
    for (let id = 1; id <= COUNTS.manyWrites; id++) await retitle(id, `${title(id)}, gzipped`);
    await timedList("manyGzip", undefined);
  });
  /** @type {Record<string, number>} */
  const results = Object.fromEntries(Object.entries(after).map(([k, v]) => [k, median(v)]));
  const runs = { missRuns: after.one?.length ?? 0, manyRuns: after.many?.length ?? 0 };
  const scanUnits = await ctx.floor.scanUnits(table);
  return /** @type {Record<string, number>} */ ({ ...results, ...runs, scanUnits });
}

/** The rows of lists after writes over `posts` posts. @param {number} posts @param {any} r */
function afterWriteRows(posts, r) {
  const list = `list ${posts}`;
  const streamed = "streamed as on Lambda";
  const row = (
    /** @type {string} */ metric,
    /** @type {number} */ value,
    /** @type {number} */ floor,
    unit = "ms",
    target = "info",
  ) => ratioRow(metric, "list-posts", value, floor, unit, target);
  const target = (/** @type {string} */ at10k) => (posts === LIMITS.list.posts ? at10k : "info");
  const units = (/** @type {number} */ k) =>
    `${list} after ${k} write(s): read units (vs a Scan's)`;
  return [
    row(
      `${list} unchanged, ${streamed}, median of ${r.missRuns} (vs bare Scan)`,
      r.unchanged,
      r.scan,
    ),
    row(
      `${list} after 1 write, patched, ${streamed}, median of ${r.missRuns} (vs bare Scan)`,
      r.one,
      r.scan,
      "ms",
      target("<= 0.05x"),
    ),
    row(
      `  the same (vs the unchanged list, ${streamed})`,
      r.one,
      r.unchanged,
      "ms",
      target("<= 1.5x"),
    ),
    row(
      `  the same, buffered: the whole list joined into one string (vs bare Scan)`,
      r.oneBuffered,
      r.scan,
    ),
    row(`  the buffered unchanged list (vs bare Scan)`, r.unchangedBuffered, r.scan),
    row(`  the same, gzipped: the whole list compressed again (vs bare Scan)`, r.oneGzip, r.scan),
    row(
      `${list} after ${COUNTS.manyWrites} writes, ${streamed}, median of ${r.manyRuns} (vs bare Scan)`,
      r.many,
      r.scan,
    ),
    row(`  the same, buffered (vs bare Scan)`, r.manyBuffered, r.scan),
    row(`  the same, gzipped (vs bare Scan)`, r.manyGzip, r.scan),
    row(units(1), r.units1, r.scanUnits, "units", target("<= 0.01x")),
    row(units(COUNTS.manyWrites), r.units100, r.scanUnits, "units"),
  ];
}

/** @type {import("./context.mjs").Section} */
export const listCache = {
  title: "list cache: warm lists, misses, memory, writes",
  async measure(ctx) {
    const env = lambdaEnv(ctx.endpoint, TABLES.listBig);
    const list = await importHandler("list-posts", env, "list-cache");
    const listed = () => expectStatus(list, GZIP);
    const lists = await listInstances(ctx.endpoint, TABLES.listBig);

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
    const after = await measureAfterWrites(ctx, lists, TABLES.listBig, {
      misses: COUNTS.misses,
      manyRounds: COUNTS.manyRounds,
      budgetMs: BUDGET_MS.misses,
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
      after,
      scanMs: after.scan,
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
    const rss = `${list} new instance's Scan: peak RSS growth (vs JSON response size)`;
    const young = `  the same, --max-semi-space-size=${SMALL_SEMI_SPACE_MB} (vs JSON response size)`;
    return [
      ratioRow(warm, "list-posts", r.warmMs, r.scanMs, "ms", "<= 0.02x"),
      ratioRow(calls, "list-posts", r.callsPerList, 1, "calls", "<= 1 calls"),
      ...afterWriteRows(LIMITS.list.posts, r.after),
      ratioRow(rss, "list-posts", mb(r.missRssGrowth), json, "MB", "<= 3x"),
      ratioRow(young, "list-posts", mb(r.missRssGrowthSmallYoung), json, "MB"),
      ...WRITES.map((op) => {
        const metric = `warm p50, ${op} (vs the write without the marker's ADD and slot)`;
        return ratioRow(metric, `${op}-post`, r.writes[op].handler, r.writes[op].bare, "ms");
      }),
    ];
  },
};

/**
 * The list cache over 100,000 posts (about 100 MB of JSON): seeded here, so run only when named.
 * A new instance's first list (its init gives up on the Scan after 2 s, so that list scans), the
 * unchanged list, and lists after 1 and after 100 writes, each beside a bare Scan.
 * @type {import("./context.mjs").Section & { optIn: true }}
 */
export const listCacheLarge = {
  title: `list cache over ${LARGE.posts} posts (only when named)`,
  optIn: true,
  async measure(ctx) {
    log(`seeding ${LARGE.posts} posts`);
    const { contentChars } = LIMITS.list;
    await seedTables(
      ctx.endpoint,
      ctx.floor,
      [[LARGE.table, 1, LARGE.posts, contentChars]],
      LARGE.seedBudgetMs,
    );
    log("list cache, large: a new instance's first list, beside a bare Scan");
    const env = lambdaEnv(ctx.endpoint, LARGE.table);
    const started = performance.now();
    const first = await importStreamed(env, "first");
    const initMs = performance.now() - started;
    const firstMs = initMs + (await timed(() => first(IDENTITY)));
    const firstScanMs = await timed(() => ctx.floor.list(LARGE.table));
    const lists = await listInstances(ctx.endpoint, LARGE.table);
    log("list cache, large: warm lists");
    const warm = /** @type {number[]} */ ([]);
    await rounds(LARGE.warmLists, LARGE.budgetMs, [0], async () => {
      warm.push(await timed(() => lists.streamed(IDENTITY)));
    });
    log("list cache, large: lists after 1 and 100 writes, beside bare Scans");
    const after = await measureAfterWrites(ctx, lists, LARGE.table, LARGE);
    return { initMs, firstMs, firstScanMs, warmMs: median(warm), warmRuns: warm.length, after };
  },
  rows(/** @type {any} */ r) {
    const list = `list ${LARGE.posts}`;
    return [
      ratioRow(
        `${list}, new instance: init + first list, streamed (vs bare Scan)`,
        "list-posts",
        r.firstMs,
        r.firstScanMs,
        "ms",
      ),
      ratioRow(`  its init (vs the whole)`, "list-posts", r.initMs, r.firstMs, "ms"),
      ratioRow(
        `${list} warm, table unchanged, streamed, p50 of ${r.warmRuns} (vs bare Scan)`,
        "list-posts",
        r.warmMs,
        r.after.scan,
        "ms",
      ),
      ...afterWriteRows(LARGE.posts, r.after),
    ];
  },
};
