// `npm run load`: a bounded load test of the API served with `npm start`'s serverless-offline
// options (its own in-memory DynamoDB Local and serverless-offline, on free ports). Prints throughput, p50/p99
// latency, errors and the server's resident memory before, at its peak and after, then the
// metrics the functions' own log lines carried, as the stage's dashboard would show them.
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";

/**
 * What each connection sends, in turn. `crud`: create a post, read, update it, list every post,
 * delete it (so the table stays small). `create`: creates only. `onCreated` sees each new id.
 * @param {"crud" | "create"} mix
 * @param {(id: number) => void} [onCreated]
 * @returns {autocannon.Request[]}
 */
function requestsFor(mix, onCreated) {
  /** @type {autocannon.Request} */
  const create = {
    method: "POST",
    path: "/api/post",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title: "Load", content: "A post made by npm run load" }),
    onResponse: (_status, body, context) => {
      const { id } = JSON.parse(body);
      /** @type {{ id?: number }} */ (context).id = id;
      onCreated?.(id);
    },
  };
  if (mix === "create") return [create];
  return [
    create,
    { method: "GET", setupRequest: withPostId },
    {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Load, updated" }),
      setupRequest: withPostId,
    },
    { method: "GET", path: "/api/post" },
    { method: "DELETE", setupRequest: withPostId },
  ];
}

/** Points a request at the post this connection created last. */
function withPostId(/** @type {autocannon.Request} */ request, /** @type {object} */ context) {
  return { ...request, path: `/api/post/${/** @type {{ id?: number }} */ (context).id}` };
}

export const MIXES = /** @type {const} */ (["crud", "create"]);

/**
 * @typedef {object} LoadOptions
 * @property {string} baseUrl
 * @property {number} requests total requests, spread over the connections
 * @property {number} connections requests in flight at once
 * @property {(typeof MIXES)[number]} mix
 * @property {() => Promise<number>} [serverRss] samples the server's resident memory in bytes
 */

/** Sends the requests and samples the server's memory twice a second meanwhile. */
export async function runLoad(/** @type {LoadOptions} */ options) {
  const samples = /** @type {number[]} */ ([]);
  const createdIds = /** @type {number[]} */ ([]);
  const sample = async () => {
    if (options.serverRss) samples.push(await options.serverRss());
  };
  await sample();
  const sampler = setInterval(() => void sample().catch(() => undefined), 500);
  try {
    const result = await autocannon({
      url: options.baseUrl,
      connections: options.connections,
      amount: options.requests,
      timeout: 20,
      requests: requestsFor(options.mix, (id) => createdIds.push(id)),
    });
    await sample();
    const errors = result.errors + result.timeouts + result.non2xx;
    return { result, errors, rss: samples, createdIds };
  } finally {
    clearInterval(sampler);
  }
}

/** Builds the bundles and serves them as `npm start` does, over an in-memory DynamoDB Local. */
async function startOwnApi(/** @type {(line: Record<string, unknown>) => void} */ onLogLine) {
  const { build } = await import("./build.mjs");
  const { startLocalApi } = await import("./lib/offline.mjs");
  await build();
  return startLocalApi("load", { onLogLine });
}

const mb = (/** @type {number} */ bytes) => `${(bytes / 1e6).toFixed(0)} MB`;

/** One paragraph a person can read, as docs/performance.md quotes it. */
export function describeLoad(/** @type {Awaited<ReturnType<typeof runLoad>>} */ run, mix = "") {
  const { result, rss } = run;
  const lines = [
    `${result.requests.total} requests (${mix}) at ${result.connections} connections in ` +
      `${result.duration.toFixed(1)} s: ${(result.requests.total / result.duration).toFixed(0)} req/s`,
    `latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
    `errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx}`,
  ];
  if (rss.length > 0) {
    lines.push(
      `server RSS: before ${mb(rss[0] ?? 0)}, peak ${mb(Math.max(...rss))}, ` +
        `after ${mb(rss.at(-1) ?? 0)}`,
    );
  }
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // Lambda runs Node 24; the SDK's notice about older Node is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const { values } = parseArgs({
    options: {
      requests: { type: "string", default: "3000" },
      connections: { type: "string", default: "16" },
      mix: { type: "string", default: "crud" },
      rounds: { type: "string", default: "1" },
    },
  });
  const mix = /** @type {(typeof MIXES)[number]} */ (values.mix);
  if (!MIXES.includes(mix)) throw new Error(`--mix is one of ${MIXES.join(", ")}`);
  const { SetupError } = await import("./lib/setup-checks.mjs");
  const { formatMetricsSummary, summarizeMetrics } = await import("./lib/metrics-summary.mjs");
  /** @type {Record<string, unknown>[]} */
  let logLines = [];
  const api = await startOwnApi((line) => logLines.push(line)).catch((error) => {
    if (!(error instanceof SetupError)) throw error;
    console.error(error.message);
    process.exit(1);
  });
  let failed = false;
  try {
    for (let round = 1; round <= Number(values.rounds); round++) {
      const run = await runLoad({
        baseUrl: api.baseUrl,
        requests: Number(values.requests),
        connections: Number(values.connections),
        mix,
        serverRss: api.rss,
      });
      console.log(`round ${round}: ${describeLoad(run, mix)}\n`);
      // The last lines may still be on their way through the pipe.
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Round 1 keeps the start's lines: its readiness check is the list function's cold start.
      const since =
        round === 1 ? "the start, its one readiness list included" : "the round's start";
      console.log(
        `metrics from the functions' log lines since ${since}:\n` +
          `${formatMetricsSummary(summarizeMetrics(logLines))}\n`,
      );
      logLines = [];
      failed ||= run.errors > 0;
    }
  } finally {
    await api.stop();
  }
  process.exitCode = failed ? 1 : 0;
}
