// `npm run load`: a bounded load test of the API served with `npm start`'s serverless-offline
// options (its own in-memory DynamoDB Local and serverless-offline, on free ports). Prints throughput, p50/p99
// latency, errors and the server's resident memory before, at its peak and after, then the
// metrics the functions' own log lines carried, as the stage's dashboard would show them; then
// reads the list through the API's client to show that no post was lost or left behind.
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { connect, using } from "./lib/api.mjs";
import { StopError, progress, runWithFlags } from "./lib/cli.mjs";

/**
 * What each connection sends, in turn. `crud`: create a post, read, update it, list every post,
 * delete it (so the table stays small). `create`: creates only. `seen` is told each id created,
 * and each id a 204 deleted.
 * @param {"crud" | "create"} mix
 * @param {{ created: (id: number) => void, deleted: (id: number) => void }} [seen]
 * @returns {autocannon.Request[]}
 */
function requestsFor(mix, seen) {
  /** @type {autocannon.Request} */
  const create = {
    method: "POST",
    path: "/api/post",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title: "Load", content: "A post made by npm run load" }),
    onResponse: (status, body, context) => {
      // Only a 201 made a post; a refusal is counted among the round's errors instead.
      if (status !== 201) return;
      const { id } = JSON.parse(body);
      /** @type {{ id?: number }} */ (context).id = id;
      seen?.created(id);
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
    {
      method: "DELETE",
      setupRequest: withPostId,
      onResponse: (status, _body, context) => {
        if (status === 204) seen?.deleted(/** @type {{ id: number }} */ (context).id);
      },
    },
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
 * @property {boolean} [showProgress] a bar at a terminal, lines in a log, while it runs
 */

/** Sends the requests and samples the server's memory twice a second meanwhile. */
export async function runLoad(/** @type {LoadOptions} */ options) {
  const samples = /** @type {number[]} */ ([]);
  const createdIds = /** @type {number[]} */ ([]);
  const deletedIds = new Set(/** @type {number[]} */ ([]));
  const sample = async () => {
    if (options.serverRss) samples.push(await options.serverRss());
  };
  await sample();
  const sampler = setInterval(() => void sample().catch(() => undefined), 500);
  try {
    const bar = options.showProgress ? progress(options.requests, "requests") : undefined;
    /** @type {autocannon.Result} */
    const result = await new Promise((resolve, reject) => {
      const sent = {
        url: options.baseUrl,
        connections: options.connections,
        amount: options.requests,
        timeout: 20,
        requests: requestsFor(options.mix, {
          created: (id) => void createdIds.push(id),
          deleted: (id) => void deletedIds.add(id),
        }),
      };
      const instance = autocannon(sent, (error, done) => (error ? reject(error) : resolve(done)));
      instance.on("response", () => bar?.tick());
    }).finally(() => bar?.end());
    await sample();
    const errors = result.errors + result.timeouts + result.non2xx;
    return { result, errors, rss: samples, createdIds, deletedIds };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * What the table holds after a round, read through the API's client: every post the round made
 * and did not delete, once, and none that it deleted (a `crud` connection whose requests ran out
 * mid-cycle leaves its last post). Returns the problems, and how many posts are listed.
 * @param {string} baseUrl
 * @param {Awaited<ReturnType<typeof runLoad>>} run
 */
export async function checkAfterLoad(baseUrl, run) {
  const service = await connect(baseUrl, { name: "The API" });
  const list = await using(service, (blog) => blog.listPosts());
  if (list.notModified) throw new StopError("a list without If-None-Match answered 304");
  const listed = new Set(list.posts.map((post) => post.id));
  const problems = [];
  for (const id of run.createdIds) {
    const deleted = run.deletedIds.has(id);
    if (deleted && listed.has(id)) problems.push(`#${id} is listed after its delete`);
    if (!deleted && !listed.has(id)) problems.push(`#${id} was created and is not listed`);
  }
  if (new Set(run.createdIds).size !== run.createdIds.length)
    problems.push("an id was given twice");
  return { problems, listed: listed.size };
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

const USAGE = `Usage: npm run load -- [options]

Builds the bundles, starts an in-memory DynamoDB Local and serverless-offline on free ports with
npm start's options, sends the requests with autocannon, prints throughput, latency, errors, the
server's memory and the functions' metrics, checks the list through the API's client (every post
a create round made is there, none a crud round deleted), then stops everything.

Options:
  --requests N      requests per round, spread over the connections (default 3000)
  --connections N   requests in flight at once (default 16)
  --mix MIX         crud: each connection creates, reads, updates, lists and deletes a post;
                    create: creates only (default crud)
  --rounds N        rounds on the same, by then warm, server (default 1)
  -h, --help        this text

Exit codes: 0 every request answered 2xx and the list holds what it should; 1 a request failed or
the list does not; 2 a bad option or a missing prerequisite, with one line saying why.`;

/** A whole number from 1 up, for the flag `name`. */
function count(/** @type {string} */ name, /** @type {string} */ value) {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new StopError(`--${name} must be a whole number from 1 up, not ${value}`);
  }
  return number;
}

/** @param {import("./lib/cli.mjs").FlagValues} values */
function readOptions(values) {
  const mix = /** @type {(typeof MIXES)[number]} */ (values.mix);
  if (!MIXES.includes(mix))
    throw new StopError(`--mix must be one of ${MIXES.join(", ")}, not ${mix}`);
  return {
    requests: count("requests", values.requests),
    connections: count("connections", values.connections),
    rounds: count("rounds", values.rounds),
    mix,
  };
}

/** @param {ReturnType<typeof readOptions>} options */
async function run(options) {
  // Lambda runs Node 24; the SDK's notice about older Node is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const { SetupError } = await import("./lib/setup-checks.mjs");
  const { formatMetricsSummary, summarizeMetrics } = await import("./lib/metrics-summary.mjs");
  /** @type {Record<string, unknown>[]} */
  let logLines = [];
  const api = await startOwnApi((line) => logLines.push(line)).catch((error) => {
    if (error instanceof SetupError) throw new StopError(error.message);
    throw error;
  });
  let failed = false;
  try {
    for (let round = 1; round <= options.rounds; round++) {
      const load = await runLoad({
        ...options,
        baseUrl: api.baseUrl,
        serverRss: api.rss,
        showProgress: true,
      });
      console.log(`round ${round}: ${describeLoad(load, options.mix)}`);
      const after = await checkAfterLoad(api.baseUrl, load);
      console.log(
        after.problems.length === 0
          ? `list through the client: ${after.listed} posts, as the round left them\n`
          : `list through the client: ${after.problems.join("; ")}\n`,
      );
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
      failed ||= load.errors > 0 || after.problems.length > 0;
    }
  } finally {
    await api.stop();
  }
  return failed ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runWithFlags({
    name: "load",
    usage: USAGE,
    flags: {
      requests: { type: "string", default: "3000" },
      connections: { type: "string", default: "16" },
      mix: { type: "string", default: "crud" },
      rounds: { type: "string", default: "1" },
    },
    read: readOptions,
    run,
  });
}
