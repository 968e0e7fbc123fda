// What every bench section shares: paths, counts and time budgets, the tables and their seeded
// posts, the Lambda environment, each handler's request and floor call, and loading the bundles.
import { fileURLToPath, pathToFileURL } from "node:url";
import { progress } from "../scripts/lib/cli.mjs";
import * as local from "../scripts/lib/dynamodb-local.mjs";
import { apiEvent } from "../tests/helpers/api-event.mjs";
import { filler, log } from "./util.mjs";

/** @typedef {import("aws-lambda").APIGatewayProxyEvent} ApiEvent */
/** @typedef {(event: ApiEvent) => Promise<{ statusCode: number, body: string }>} Handler */
/** @typedef {import("./floor.js").Floor} Floor */
/**
 * A part of the bench, run on DynamoDB Local: `measure` returns what results.json keeps, `rows`
 * turns that (and the other sections' results) into lines of the table. Sections share DynamoDB Local's endpoint and a floor; one
 * marked `optIn` runs only when --only names it.
 * @typedef {{ endpoint: string, floor: Floor }} Context
 * @typedef {{ title: string, optIn?: boolean, measure(ctx: Context): Promise<any>, rows(result: any, results: Record<string, any>): import("./util.mjs").Row[] }} Section
 */

export const root = fileURLToPath(new URL("..", import.meta.url));
export const benchDir = `${root}bench`;
/** Where the bench builds; removed however the run ends. */
export const staging = `${root}dist/.bench-${process.pid}`;

/** Counts and time budgets; the sum of the budgets keeps a run well under five minutes. */
export const LIMITS = {
  childTimeoutMs: 30_000,
  cold: { runs: 20, minRuns: 10, budgetMs: 75_000 },
  warm: { warmup: 100, iterations: 400, budgetMsPerHandler: 7_000 },
  list: { posts: 10_000, contentChars: 930 },
  seed: { concurrency: 4, budgetMs: 60_000 },
};

export const TABLES = {
  small: "bench-small", // posts 1..20, the deletes' posts and every create
  listSmall: "bench-list-small", // 20 posts of about 1 KB
  listBig: "bench-list-10k", // LIMITS.list.posts posts of about 1 KB
};

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

/** Deletes, by handler or floor, take turns on the posts seeded from this id up. */
const DELETE_FROM = 1_000_000;
let lastDeleted = DELETE_FROM;
const body = (/** @type {number} */ i) => ({ title: `bench ${i}`, content: filler(i, 200) });
const title = (/** @type {number} */ i) => ({ title: `bench ${i}` });
const { small, listSmall } = TABLES;
/** @typedef {{ table: string, status: number, event: (i: number) => ApiEvent, floor: (floor: Floor, i: number) => Promise<unknown> }} HandlerCase */
/**
 * What each handler is asked: its table, its i-th request, the status due, and the floor's
 * storage calls for the same operation.
 * @type {Record<"create-post" | "delete-post" | "get-post" | "list-posts" | "update-post", HandlerCase>}
 */
export const HANDLER_CASES = {
  "create-post": {
    table: small,
    status: 201,
    event: (i) => apiEvent({ method: "POST", body: body(i) }),
    floor: (floor, i) => floor.create(small, body(i)),
  },
  "delete-post": {
    table: small,
    status: 204,
    event: () => apiEvent({ method: "DELETE", postId: ++lastDeleted }),
    floor: (floor) => floor.remove(small, ++lastDeleted),
  },
  "get-post": {
    table: small,
    status: 200,
    event: () => apiEvent({ method: "GET", postId: 1 }),
    floor: (floor) => floor.get(small, 1),
  },
  "list-posts": {
    table: listSmall,
    status: 200,
    event: () => apiEvent({ method: "GET" }),
    floor: (floor) => floor.list(listSmall),
  },
  "update-post": {
    table: small,
    status: 200,
    event: (i) => apiEvent({ method: "PUT", postId: 2, body: title(i) }),
    floor: (floor, i) => floor.update(small, 3, title(i)),
  },
};

/** Seeded post `id`, with `chars` characters of content. */
function seedPost(/** @type {number} */ id, /** @type {number} */ chars) {
  const at = "2025-01-02T03:04:05.000Z";
  return { id, title: `Post ${id}`, content: filler(id, chars), created_at: at, updated_at: at };
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
  // Batches of 25 ids, what BatchWrite takes; their posts are made when they are sent.
  const batches = seeds.flatMap(([table, from, count, chars]) =>
    Array.from({ length: Math.ceil(count / 25) }, (_, b) => {
      const first = from + 25 * b;
      const ids = Array.from({ length: Math.min(25, from + count - first) }, (_, i) => first + i);
      return { table, posts: () => ids.map((id) => seedPost(id, chars)) };
    }),
  );
  const deadline = performance.now() + budgetMs;
  const bar = progress(
    seeds.reduce((sum, seed) => sum + seed[2], 0),
    "posts seeded",
  );
  const worker = async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) {
      if (performance.now() > deadline) throw new Error("seeding ran out of time");
      const posts = batch.posts();
      await floor.batchPut(batch.table, posts);
      bar.tick(posts.length);
    }
  };
  try {
    await Promise.all(Array.from({ length: LIMITS.seed.concurrency }, worker));
  } finally {
    bar.end();
  }
}

/** The tables the sections share, with every post they read or delete. */
export async function prepareTables(/** @type {string} */ endpoint, /** @type {Floor} */ floor) {
  log(`seeding ${LIMITS.list.posts} posts`);
  const { cold, warm, list } = LIMITS;
  // A cold round deletes once; a warm iteration twice, through the handler and the floor.
  const deletes = cold.runs + 2 * (warm.warmup + warm.iterations) + 2;
  await seedTables(endpoint, floor, [
    [small, 1, 20, list.contentChars],
    [small, DELETE_FROM + 1, deletes, 200],
    [listSmall, 1, 20, list.contentChars],
    [TABLES.listBig, 1, list.posts, list.contentChars],
  ]);
}
