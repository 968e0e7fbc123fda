// What every bench section shares: paths, counts and time budgets, the tables and their seeded
// posts, the Lambda environment, each handler's request and floor call, and loading the bundles.
import { fileURLToPath, pathToFileURL } from "node:url";
import { apiEvent } from "../tests/helpers/api-event.mjs";
import * as local from "../scripts/lib/dynamodb-local.mjs";
import { filler, log } from "./util.mjs";

/** @typedef {import("aws-lambda").APIGatewayProxyEvent} ApiEvent */
/** @typedef {(event: ApiEvent) => Promise<{ statusCode: number, body: string }>} Handler */
/** @typedef {import("./floor.js").Floor} Floor */
/**
 * A part of the bench, run on DynamoDB Local: `measure` returns what results.json keeps, `rows`
 * turns that into lines of the table. Sections share the endpoint, the floor and loaded handlers.
 * @typedef {{ endpoint: string, floor: Floor, handlers: Record<string, Handler> }} Context
 * @typedef {import("./util.mjs").Row | import("./util.mjs").RowSpec} AnyRow
 * @typedef {{ title: string, measure(ctx: Context): Promise<any>, rows(result: any): AnyRow[] }} Section
 */

export const root = fileURLToPath(new URL("..", import.meta.url));
export const benchDir = `${root}bench`;
/** Where the bench builds; removed however the run ends. */
export const staging = `${root}dist/.bench-${process.pid}`;

/** Counts and time budgets; the sum of the budgets keeps a run well under five minutes. */
export const LIMITS = {
  bundleTargetKb: 300,
  childTimeoutMs: 30_000,
  cold: { runs: 20, minRuns: 10, budgetMs: 75_000 },
  warm: { warmup: 100, iterations: 400, budgetMsPerHandler: 7_000 },
  list: { posts: 10_000, contentChars: 930, runsPerSide: 5, budgetMs: 75_000 },
  listStream: { posts: 50_000, seedBudgetMs: 180_000, childTimeoutMs: 240_000 },
  seed: { concurrency: 4, budgetMs: 60_000 },
  throughput: { concurrency: 16, warmupMs: 2_000, segmentMs: 5_000, idBlockSize: 100 },
  throughputMaxOps: 100_000,
};

export const TABLES = {
  small: "bench-small", // posts 1..20, the deletes' posts and every create
  listSmall: "bench-list-small", // 20 posts of about 1 KB, never written
  listSmallWritten: "bench-list-small-written", // the same, for the streamed list after a write
  listBig: "bench-list-10k", // LIMITS.list.posts posts of about 1 KB
  listLarge: "bench-list-50k", // LIMITS.listStream.posts posts of about 1 KB
};
/** Each section's deletes remove the seeded posts after this id; bare PutItems write far above. */
export const DELETE_BASE = { cold: 2_000_000, warm: 3_000_000, listCache: 3 };
export const BARE_PUT_BASE = 10_000_000_000;

/** The environment a handler gets on Lambda, pointed at DynamoDB Local. */
export const lambdaEnv = (/** @type {string} */ endpoint, /** @type {string} */ table) => ({
  TABLE_NAME: table,
  AWS_ENDPOINT_URL_DYNAMODB: endpoint,
  AWS_REGION: local.LOCAL_REGION,
  AWS_ACCESS_KEY_ID: local.LOCAL_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: local.LOCAL_CREDENTIALS.secretAccessKey,
  LOG_LEVEL: "silent",
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
  TZ: "UTC",
});

/** A bundle of the staging folder; a query string makes a separate instance of the same file. */
const staged = (/** @type {string} */ name, instance = "") =>
  `${pathToFileURL(`${staging}/${name}/index.mjs`).href}?${instance}`;

/**
 * Loads a handler bundle into this process. Bundles read their configuration once, at import, so
 * `env` goes into `process.env` first (and stays, as it would on Lambda).
 * @param {string} name @param {Record<string, string>} env @returns {Promise<Handler>}
 */
export async function importHandler(name, env, instance = "") {
  Object.assign(process.env, env);
  return (await import(staged(name, instance))).handler;
}

/** The floor (bench/floor.ts, bundled like the handlers), pointed at `endpoint`. */
export async function importFloor(/** @type {string} */ endpoint, instance = "") {
  const { createFloor } = await import(staged("floor", instance));
  return /** @type {Floor} */ (createFloor({ endpoint, region: local.LOCAL_REGION }));
}

/** @typedef {{ table: string, status: number, event: (i: number) => ApiEvent, floor: (floor: Floor, i: number) => Promise<unknown> }} HandlerCase */
/**
 * What each handler is asked: its table (`table`; the list reads TABLES.listSmall), its i-th
 * request (titles start with `label`; deletes, by handler or floor, take turns on the seeded
 * posts), the status due, and the floor's storage calls for the same operation.
 * @param {keyof typeof DELETE_BASE} label
 * @returns {Record<"create-post" | "delete-post" | "get-post" | "list-posts" | "update-post", HandlerCase>}
 */
export function handlerCases(label, table = TABLES.small) {
  let lastDeleted = DELETE_BASE[label];
  const body = (/** @type {number} */ i) => ({ title: `${label} ${i}`, content: filler(i, 200) });
  const title = (/** @type {number} */ i) => ({ title: `${label} ${i}` });
  const list = TABLES.listSmall;
  return {
    "create-post": {
      table,
      status: 201,
      event: (i) => apiEvent({ method: "POST", body: body(i) }),
      floor: (floor, i) => floor.create(table, body(i)),
    },
    "delete-post": {
      table,
      status: 204,
      event: () => apiEvent({ method: "DELETE", postId: ++lastDeleted }),
      floor: (floor) => floor.remove(table, ++lastDeleted),
    },
    "get-post": {
      table,
      status: 200,
      event: () => apiEvent({ method: "GET", postId: 1 }),
      floor: (floor) => floor.get(table, 1),
    },
    "list-posts": {
      table: list,
      status: 200,
      event: () => apiEvent({ method: "GET" }),
      floor: (floor) => floor.list(list),
    },
    "update-post": {
      table,
      status: 200,
      event: (i) => apiEvent({ method: "PUT", postId: 2, body: title(i) }),
      floor: (floor, i) => floor.update(table, 3, title(i)),
    },
  };
}

/**
 * Creates each table `seeds` names (with its id counter) and puts its posts, from a few workers.
 * @param {string} endpoint @param {Floor} floor
 * @param {[string, number, number, number][]} seeds table, first id, count, characters of content
 */
export async function seedTables(endpoint, floor, seeds, budgetMs = LIMITS.seed.budgetMs) {
  const admin = local.localClient(endpoint);
  try {
    for (const table of new Set(seeds.map(([name]) => name))) await local.ensureTable(admin, table);
  } finally {
    admin.destroy();
  }
  const at = "2025-01-02T03:04:05.000Z";
  // Batches of 25, what BatchWrite takes.
  const batches = seeds.flatMap(([table, from, count, chars]) =>
    Array.from({ length: Math.ceil(count / 25) }, (_, b) => {
      const ids = Array.from({ length: Math.min(25, count - 25 * b) }, (_, i) => from + 25 * b + i);
      const post = (/** @type {number} */ id) => ({
        id,
        title: `Post ${id}`,
        content: filler(id, chars),
      });
      return { table, posts: ids.map((id) => ({ ...post(id), created_at: at, updated_at: at })) };
    }),
  );
  const deadline = performance.now() + budgetMs;
  const worker = async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) {
      if (performance.now() > deadline) throw new Error("seeding ran out of time");
      await floor.batchPut(batch.table, batch.posts);
    }
  };
  await Promise.all(Array.from({ length: LIMITS.seed.concurrency }, worker));
}

/** The tables the sections share, with every post they read or delete. */
export async function prepareTables(/** @type {string} */ endpoint, /** @type {Floor} */ floor) {
  log(`seeding ${LIMITS.list.posts} posts`);
  const { small, listSmall, listBig } = TABLES;
  const { cold, warm, list } = LIMITS;
  // Each warm iteration deletes twice: once through the handler, once through the floor.
  const warmDeletes = 2 * (warm.warmup + warm.iterations) + 2;
  await seedTables(endpoint, floor, [
    [small, 1, 20, list.contentChars],
    [small, DELETE_BASE.cold, cold.runs + 1, 200],
    [small, DELETE_BASE.warm, warmDeletes, 200],
    [listSmall, 1, 20, list.contentChars],
    [listBig, 1, list.posts, list.contentChars],
  ]);
}
