// What every bench section shares: paths, counts and time budgets, the log, the Lambda
// environment, and loading the bundles under test.
import { fileURLToPath, pathToFileURL } from "node:url";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../scripts/dynamodb-local.mjs";

/** @typedef {import("./util.mjs").ApiEvent} ApiEvent */
/** @typedef {(event: ApiEvent) => Promise<{ statusCode: number, body: string }>} Handler */
/** @typedef {ReturnType<import("./sdk-direct.mjs").createDirect>} Direct */

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

/** `performance.now()` when the bench started, for the log and the wall time. */
export const benchStarted = performance.now();

/** Writes a progress line, stamped with the seconds since the bench started, to stderr. */
export function log(/** @type {string} */ message) {
  const seconds = ((performance.now() - benchStarted) / 1000).toFixed(1);
  process.stderr.write(`[bench ${seconds}s] ${message}\n`);
}

/** Bytes in KB. */
export const kb = (/** @type {number} */ bytes) => bytes / 1024;
/** Bytes in MB. */
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

/** A module URL; a query string makes a separate instance of the same file. */
const moduleUrl = (/** @type {string} */ path, /** @type {string} */ instance) =>
  `${pathToFileURL(path).href}${instance ? `?${instance}` : ""}`;

/**
 * Loads a handler bundle into this process. Bundles read their configuration once, at import, so
 * `env` goes into `process.env` first (and stays, as it would on Lambda).
 * @param {string} name @param {Record<string, string>} env @param {string} [instance]
 * @returns {Promise<Handler>}
 */
export async function importHandler(name, env, instance = "") {
  Object.assign(process.env, env);
  return (await import(moduleUrl(`${staging}/${name}/index.mjs`, instance))).handler;
}

/**
 * The baseline: bench/sdk-direct.mjs, bundled like the handlers, pointed at `endpoint`.
 * @param {string} endpoint @param {string} [instance]
 * @returns {Promise<Direct>}
 */
export async function importDirect(endpoint, instance = "") {
  const module = await import(moduleUrl(`${staging}/sdk-direct/index.mjs`, instance));
  return module.createDirect({ endpoint, region: LOCAL_REGION });
}
