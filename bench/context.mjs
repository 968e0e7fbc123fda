// What every bench section shares: paths, counts and time budgets, the tables and their seeded
// posts, the Lambda environment, each handler's request and floor call, and loading the bundles.
import { fileURLToPath, pathToFileURL } from "node:url";
import { progress } from "../scripts/lib/cli.mjs";
import * as local from "../scripts/lib/dynamodb-local.mjs";

/** @typedef {import("aws-lambda").APIGatewayProxyEvent} ApiEvent */
/** @typedef {(event: ApiEvent) => Promise<{ statusCode: number, body: string }>} Handler */
/** @typedef {import("./floor.js").Floor} Floor */
/**
 * A part of the bench, run on DynamoDB Local: `measure` returns what results.json keeps, `rows`
 * turns that (and the other sections' results) into lines of the table. One marked `optIn` runs
 * only when --only names it.
 * @typedef {{ title: string, optIn?: boolean, measure(ctx: { endpoint: string, floor: Floor }): Promise<any>, rows(result: any, results: Record<string, any>): import("./util.mjs").Row[] }} Section
 */

const root = fileURLToPath(new URL("..", import.meta.url));
export const benchDir = `${root}bench`;
/** Where the bench builds; removed however the run ends. */
export const staging = `${root}dist/.bench-${process.pid}`;

/** Counts and time budgets: every loop stops at its count or its budget, whichever comes first. */
export const LIMITS = {
  childTimeoutMs: 30_000,
  cold: { runs: 20, budgetMs: 75_000 },
  warm: { warmup: 100, iterations: 400, budgetMsPerHandler: 7_000 },
  list: { posts: 10_000, contentChars: 930 },
  seedBudgetMs: 60_000,
  // Warm unchanged lists, then rounds after 1 write and after 100; the large one seeds its table.
  listCache: { warmLists: 300, rounds: 5, manyRounds: 3, budgetMs: 60_000 },
  listCacheLarge: { warmLists: 20, rounds: 3, manyRounds: 2, budgetMs: 300_000, seedMs: 900_000 },
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
const { small, listSmall } = TABLES;
const at = "2025-01-02T03:04:05.000Z";
const SEEDED_AT = { created_at: at, updated_at: at };
/** @typedef {import("../tests/helpers/api-event.mjs").EventOptions} Request */
/**
 * The i-th request each handler is asked, on TABLES.small (the list on TABLES.listSmall); the
 * floor makes the storage calls of the same request (floorCall).
 * @type {Record<string, (i: number) => Request> & Record<"get-post", (i: number) => Request>}
 */
export const REQUESTS = {
  "create-post": (i) => ({ method: "POST", body: { ...postText(i, 200), title: `bench ${i}` } }),
  "delete-post": () => ({ method: "DELETE", postId: ++lastDeleted }),
  "get-post": () => ({ method: "GET", postId: 1 }),
  "list-posts": () => ({ method: "GET" }),
  "update-post": (i) => ({ method: "PUT", postId: 2, body: { title: `bench ${i}` } }),
};
export const tableOf = (/** @type {string} */ name) => (name === "list-posts" ? listSmall : small);
export const statusOf = (/** @type {Request} */ { method }) =>
  method === "POST" ? 201 : method === "DELETE" ? 204 : 200;

/** The floor's storage calls for `request` on `table`. @param {Floor} floor @param {string} table */
export function floorCall(floor, table, /** @type {Request} */ { method, postId, body }) {
  const [id, data] = [Number(postId), /** @type {any} */ (body)];
  if (method === "POST") return floor.create(table, data);
  if (method === "PUT") return floor.update(table, id, data);
  if (method === "DELETE") return floor.remove(table, id);
  return postId === undefined ? floor.list(table) : floor.get(table, id);
}

/** Post `id`'s title and ASCII content of exactly `chars` characters, different for each id. */
function postText(/** @type {number} */ id, /** @type {number} */ chars) {
  const words = `post ${id} lorem ipsum dolor sit amet consectetur adipiscing elit sed do `;
  const content = words.repeat(Math.ceil(chars / words.length)).slice(0, chars);
  return { title: `Post ${id}`, content };
}

/**
 * Creates each table `seeds` names and puts its posts, 25 to a BatchWrite (what it takes); a seed
 * is a table, its first id, a count and the content's length (LIMITS.list's when left out).
 * @param {string} endpoint @param {Floor} floor @param {[string, number, number, number?][]} seeds
 */
export async function seedTables(endpoint, floor, seeds, budgetMs = LIMITS.seedBudgetMs) {
  const admin = local.localClient(endpoint);
  for (const table of new Set(seeds.map(([name]) => name))) await local.ensureTable(admin, table);
  admin.destroy();
  const deadline = performance.now() + budgetMs;
  const total = seeds.reduce((sum, [, , count]) => sum + count, 0);
  const bar = progress(total, "posts seeded");
  try {
    for (const [table, from, count, chars = LIMITS.list.contentChars] of seeds) {
      for (let first = from; first < from + count; first += 25) {
        if (performance.now() > deadline) throw new Error("seeding ran out of time");
        const ids = Array.from({ length: Math.min(25, from + count - first) }, (_, i) => first + i);
        const posts = ids.map((id) => ({ id, ...postText(id, chars), ...SEEDED_AT }));
        await floor.batchPut(table, posts);
        bar.tick(posts.length);
      }
    }
  } finally {
    bar.end();
  }
}

/** The tables the sections share, with every post they read or delete. */
export async function prepareTables(/** @type {string} */ endpoint, /** @type {Floor} */ floor) {
  const { cold, warm, list } = LIMITS;
  // A cold round deletes once; a warm iteration twice, through the handler and the floor.
  const deletes = cold.runs + 2 * (warm.warmup + warm.iterations) + 2;
  await seedTables(endpoint, floor, [
    [small, 1, 20],
    [small, DELETE_FROM + 1, deletes, 200],
    [listSmall, 1, 20],
    [TABLES.listBig, 1, list.posts],
  ]);
}
