// What every bench section shares: paths, counts and time budgets, the log, the tables, the
// Lambda environment, each handler's request, and loading the bundles under test.
import { fileURLToPath, pathToFileURL } from "node:url";
import { apiEvent } from "../scripts/api-event.mjs";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../scripts/dynamodb-local.mjs";
import { filler } from "./util.mjs";

/** @typedef {import("aws-lambda").APIGatewayProxyEventV2} ApiEvent */
/** @typedef {(event: ApiEvent) => Promise<{ statusCode: number, body: string }>} Handler */
/** @typedef {import("./floor.js").Floor} Floor */
/** @typedef {{ table: string, status: number, event: (i: number) => ApiEvent }} HandlerCase */

/** The repository's root folder, with a trailing slash. */
export const root = fileURLToPath(new URL("..", import.meta.url));
export const benchDir = `${root}bench`;
/** Where the bench builds; removed however the run ends. */
export const staging = `${root}dist/.bench-${process.pid}`;

/** Counts and time budgets; the sum of the budgets keeps a run well under five minutes. */
export const LIMITS = {
  bundleTargetKb: 300,
  coldRuns: 20,
  coldMinRuns: 10,
  coldBudgetMs: 75_000,
  childTimeoutMs: 30_000,
  warmWarmup: 100,
  warmIterations: 400,
  warmBudgetMsPerHandler: 7_000,
  listPosts: 10_000,
  listContentChars: 930,
  listRunsPerSide: 5,
  listBudgetMs: 75_000,
  seedConcurrency: 4,
  seedBudgetMs: 60_000,
  throughputConcurrency: 16,
  throughputWarmupMs: 2_000,
  throughputSegmentMs: 5_000,
  throughputIdBlockSize: 100,
  throughputMaxOpsPerSegment: 100_000,
};

/** The tables, by what they hold: posts 1..20, delete targets and every create; 20 posts of
 * about 1 KB, never written; LIMITS.listPosts posts of about 1 KB. */
export const TABLES = {
  small: "bench-small",
  listSmall: "bench-list-small",
  listBig: "bench-list-10k",
};
/** First ids the cold and warm deletes remove, each a seeded post; bare PutItems write far above. */
export const COLD_DELETE_BASE = 2_000_000;
export const WARM_DELETE_BASE = 3_000_000;
export const BARE_PUT_BASE = 10_000_000_000;

/** `performance.now()` when the bench started, for the log and the wall time. */
export const benchStarted = performance.now();

/** Writes a progress line, stamped with the seconds since the bench started, to stderr. */
export function log(/** @type {string} */ message) {
  const seconds = ((performance.now() - benchStarted) / 1000).toFixed(1);
  process.stderr.write(`[bench ${seconds}s] ${message}\n`);
}

/** Bytes in KB and in MB. */
export const kb = (/** @type {number} */ bytes) => bytes / 1024;
export const mb = (/** @type {number} */ bytes) => bytes / (1024 * 1024);

/** The environment a handler gets on Lambda, pointed at DynamoDB Local. */
export const lambdaEnv = (/** @type {string} */ endpoint, /** @type {string} */ table) => ({
  TABLE_NAME: table,
  AWS_ENDPOINT_URL_DYNAMODB: endpoint,
  AWS_REGION: LOCAL_REGION,
  AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
  LOG_LEVEL: "silent",
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
  TZ: "UTC",
});

/** A module of the staging folder; a query string makes a separate instance of the same file. */
const staged = (/** @type {string} */ name, /** @type {string} */ instance) =>
  `${pathToFileURL(`${staging}/${name}/index.mjs`).href}${instance ? `?${instance}` : ""}`;

/**
 * Loads a handler bundle into this process. Bundles read their configuration once, at import, so
 * `env` goes into `process.env` first (and stays, as it would on Lambda).
 * @param {string} name @param {Record<string, string>} env @param {string} [instance]
 * @returns {Promise<Handler>}
 */
export async function importHandler(name, env, instance = "") {
  Object.assign(process.env, env);
  return (await import(staged(name, instance))).handler;
}

/**
 * The floor (bench/floor.ts, bundled like the handlers), pointed at `endpoint`.
 * @param {string} endpoint @param {string} [instance] @returns {Promise<Floor>}
 */
export async function importFloor(endpoint, instance = "") {
  return (await import(staged("floor", instance))).createFloor({ endpoint, region: LOCAL_REGION });
}

/**
 * What each handler is asked in the cold-start and warm sections: its table, its i-th request
 * (titles start with `label`; `deleteId(i)` picks a seeded post to remove) and the status due.
 * @param {string} label @param {(i: number) => number} deleteId
 * @returns {Record<string, HandlerCase>}
 */
export function handlerCases(label, deleteId) {
  const { small, listSmall } = TABLES;
  return {
    "create-post": {
      table: small,
      status: 201,
      event: (i) =>
        apiEvent({ method: "POST", body: { title: `${label} ${i}`, content: filler(i, 200) } }),
    },
    "delete-post": {
      table: small,
      status: 204,
      event: (i) => apiEvent({ method: "DELETE", postId: deleteId(i) }),
    },
    "get-post": { table: small, status: 200, event: () => apiEvent({ method: "GET", postId: 1 }) },
    "list-posts": { table: listSmall, status: 200, event: () => apiEvent({ method: "GET" }) },
    "update-post": {
      table: small,
      status: 200,
      event: (i) => apiEvent({ method: "PUT", postId: 2, body: { title: `${label} ${i}` } }),
    },
  };
}
