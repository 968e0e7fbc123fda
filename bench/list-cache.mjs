// Bench sections "listCache", over the 10,000-post table, and "listCacheLarge", over 100,000 posts
// it seeds (only when named): lists, streamed as on Lambda, unchanged and after writes, beside bare
// paginated Scans in the same run, in time and in read units.
import { Writable } from "node:stream";
import { apiEvent } from "../tests/helpers/api-event.mjs";
import { LIMITS, TABLES, importHandler, lambdaEnv, seedTables } from "./context.mjs";
import { log, median, ratioRow, rounds } from "./util.mjs";

/** @typedef {import("./util.mjs").Row} Row */
/** @typedef {import("./context.mjs").ApiEvent} ApiEvent */
/** @typedef {import("../lib/http/stream.js").LambdaStreaming} LambdaStreaming */

const MANY_WRITES = 100;
/** What a list's context gives the handler: time left, as Lambda's does (the function's 180 s). */
const LIST_CONTEXT = { getRemainingTimeInMillis: () => 180_000 };
const IDENTITY = apiEvent({ method: "GET", headers: { "accept-encoding": "identity" } });
const GZIP = apiEvent({ method: "GET", headers: { "accept-encoding": "gzip" } });

/**
 * A new list instance streamed as on Lambda (lib/http/stream.ts) into a stream keeping every piece
 * written: no network, no copy. Each list is timed, must answer 200 (with `title` after a write),
 * and reports its log line's ReadUnits (kept aside while it runs: the instance logs at info).
 */
async function importStreamed(/** @type {Record<string, string>} */ env) {
  let statusCode = 0;
  /** @type {Parameters<LambdaStreaming["streamifyResponse"]>[0] | undefined} */
  let run;
  /** @type {LambdaStreaming} */
  const awslambda = {
    streamifyResponse: (handler) => (run = handler),
    HttpResponseStream: { from: (stream, prelude) => ((statusCode = prelude.statusCode), stream) },
  };
  // Only while this bundle loads: it reads the global once, when it builds its handler.
  Object.assign(globalThis, { awslambda });
  await importHandler("list-posts", { ...env, LOG_LEVEL: "info" }, `streamed-${env.TABLE_NAME}`);
  delete (/** @type {any} */ (globalThis).awslambda);
  return async (/** @type {ApiEvent} */ event, title = "") => {
    const [body, write] = [/** @type {Buffer[]} */ ([]), process.stdout.write];
    const sink = new Writable({ write: (chunk, _, done) => (body.push(chunk), done()) });
    const lines = /** @type {string[]} */ ([]);
    process.stdout.write = /** @type {any} */ ((/** @type {string} */ line) => lines.push(line));
    const started = performance.now();
    try {
      await run?.(event, sink, LIST_CONTEXT);
    } finally {
      process.stdout.write = write;
    }
    const ms = performance.now() - started;
    // Read once the clock stopped: parsing is the bench's work, not the list's.
    const units = lines.map((line) => JSON.parse(line).ReadUnits).findLast(Number.isFinite) ?? NaN;
    if (statusCode !== 200) throw new Error(`the streamed list answered ${statusCode}`);
    if (title && !Buffer.concat(body).includes(title)) throw new Error("the list missed a write");
    return { ms, units };
  };
}

/**
 * The list cache over `posts` posts of `table`, with LIMITS[section]'s counts and budgets; one that
 * seeds its own table (within `seedMs`) runs only when named. The targets hold at 10,000 posts.
 * @param {"listCache" | "listCacheLarge"} section @param {string} table @param {number} posts
 * @returns {import("./context.mjs").Section}
 */
function listCacheSection(section, table, posts) {
  /** @type {{ warmLists: number, rounds: number, manyRounds: number, budgetMs: number, seedMs?: number }} */
  const o = LIMITS[section];
  const name = `list ${posts}`;
  return {
    title: `${section}: lists of ${posts} posts, unchanged and after writes, beside bare Scans`,
    optIn: o.seedMs !== undefined,
    async measure({ endpoint, floor }) {
      if (o.seedMs) await seedTables(endpoint, floor, [[table, 1, posts]], o.seedMs);
      // A new instance: its init reads the list (or, past its 2 s budget, leaves it to the first).
      const started = performance.now();
      const list = await importStreamed(lambdaEnv(endpoint, table));
      const initMs = performance.now() - started;
      const firstMs = initMs + (await list(IDENTITY)).ms;
      /** @type {Record<string, number[]>} */
      const runs = {};
      const keep = (/** @type {string} */ key, /** @type {{ ms: number, units: number }} */ r) => {
        (runs[key] ??= []).push(r.ms);
        (runs[`${key}Units`] ??= []).push(r.units);
      };
      await rounds(o.warmLists, o.budgetMs, [0], async () => keep("warm", await list(GZIP)));
      // Written through the floor, which advances the change marker as a handler's write does.
      const afterWrites = async (/** @type {string} */ key, /** @type {number} */ k, round = 0) => {
        const title = (/** @type {number} */ id) => `Post ${id}, ${key} ${round}`;
        for (let id = 1; id <= k; id++) await floor.update(table, id, { title: title(id) });
        keep(key, await list(IDENTITY, title(k)));
        for (let id = 1; id <= k; id++)
          await floor.update(table, id, { title: `${title(id)}, gz` });
        keep(`${key}Gzip`, await list(GZIP));
      };
      log(`${section}: lists after 1 and ${MANY_WRITES} writes, beside bare Scans`);
      await rounds(o.rounds, o.budgetMs, [0], async (_, round) => {
        keep("unchanged", await list(IDENTITY));
        await afterWrites("one", 1, round);
        const started = performance.now();
        const { units } = await floor.list(table);
        keep("scan", { ms: performance.now() - started, units });
      });
      await rounds(o.manyRounds, o.budgetMs, [0], (_, round) =>
        afterWrites("many", MANY_WRITES, round),
      );
      const medians = Object.entries(runs).map(([key, values]) => [key, median(values)]);
      const counts = Object.entries(runs)
        .filter(([key]) => !key.endsWith("Units")) // as many as the times beside them
        .map(([key, values]) => [`${key}Runs`, values.length]);
      return { initMs, firstMs, ...Object.fromEntries([...medians, ...counts]) };
    },
    rows(/** @type {any} */ r) {
      const at10k = (/** @type {string} */ goal) => (posts === LIMITS.list.posts ? goal : "info");
      /** @type {(metric: string, value: number, floor: number, target?: string, unit?: string) => Row} */
      const row = (metric, value, floor, target, unit = "ms") =>
        ratioRow(metric, "list-posts", value, floor, unit, target);
      /** @type {(what: string, value: number, target?: string) => Row} */
      const scan = (what, value, target) =>
        row(`${name} ${what} (vs bare Scan)`, value, r.scan, target);
      /** @type {(what: string, value: number, target?: string) => Row} */
      const units = (what, value, target) =>
        row(`${name} ${what}: read units (vs a Scan's)`, value, r.scanUnits, target, "units");
      return [
        row(`${name}, new instance: init + first list (vs bare Scan)`, r.firstMs, r.scan),
        row("  its init (vs the whole)", r.initMs, r.firstMs),
        scan(`warm, unchanged, gzipped, median of ${r.warmRuns}`, r.warm, at10k("<= 0.02x")),
        scan(`unchanged, median of ${r.unchangedRuns}`, r.unchanged),
        scan(`after 1 write, patched, median of ${r.oneRuns}`, r.one, at10k("<= 0.05x")),
        row("  the same (vs the unchanged list)", r.one, r.unchanged, at10k("<= 1.5x")),
        row("  the same, gzipped: the whole list compressed (vs not gzipped)", r.oneGzip, r.one),
        scan(`after ${MANY_WRITES} writes, median of ${r.manyRuns}`, r.many),
        row("  the same, gzipped (vs not gzipped)", r.manyGzip, r.many),
        units("unchanged, the marker's read alone", r.unchangedUnits),
        units("after 1 write", r.oneUnits, at10k("<= 0.01x")),
        units(`after ${MANY_WRITES} writes`, r.manyUnits),
      ];
    },
  };
}

export const listCache = listCacheSection("listCache", TABLES.listBig, LIMITS.list.posts);
export const listCacheLarge = listCacheSection("listCacheLarge", "bench-list-100k", 100_000);
