// `npm run load`: a bounded load test of the API served as `npm start` serves it, on a stack of its
// own; USAGE below says what it prints and checks.
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { connect, using } from "./lib/api.mjs";
import { StopError, runWithFlags } from "./lib/cli.mjs";

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

/** @typedef {{ id?: number }} Connection what autocannon keeps per connection: its last post */
const json = { "content-type": "application/json" };
/** Points a request at the post this connection created last. */
const atPost = (/** @type {autocannon.Request} */ request, /** @type {Connection} */ context) => ({
  ...request,
  path: `/api/post/${context.id}`,
});

/**
 * What each connection sends, in turn. `crud`: create a post, read, update it, list every post,
 * delete it (so the table stays small). `create`: creates only. `seen` hears of each id a 201
 * created and a 204 deleted (a refusal is counted among the round's errors instead).
 * @param {"crud" | "create"} mix
 * @param {{ created: (id: number) => void, deleted: (id: number) => void }} seen
 * @returns {autocannon.Request[]}
 */
function requestsFor(mix, seen) {
  const body = JSON.stringify({ title: "Load", content: "A post made by npm run load" });
  /** @type {autocannon.Request} */
  const create = { method: "POST", path: "/api/post", headers: json, body };
  create.onResponse = (status, answer, /** @type {Connection} */ context) => {
    if (status === 201) seen.created((context.id = JSON.parse(answer).id));
  };
  if (mix === "create") return [create];
  const update = JSON.stringify({ title: "Load, updated" });
  return [
    create,
    { method: "GET", setupRequest: atPost },
    { method: "PUT", headers: json, body: update, setupRequest: atPost },
    { method: "GET", path: "/api/post" },
    {
      method: "DELETE",
      setupRequest: atPost,
      onResponse: (status, _body, /** @type {Connection} */ context) =>
        void (status === 204 && context.id && seen.deleted(context.id)),
    },
  ];
}

/**
 * Sends `requests` over `connections` with autocannon (its bar at a terminal with `showProgress`),
 * sampling the server's memory (`serverRss`, bytes) twice a second meanwhile.
 * @param {{ baseUrl: string, requests: number, connections: number, mix: "crud" | "create",
 *   serverRss?: () => Promise<number>, showProgress?: boolean }} options
 */
export async function runLoad(options) {
  const rss = /** @type {number[]} */ ([]);
  const createdIds = /** @type {number[]} */ ([]);
  const deletedIds = new Set(/** @type {number[]} */ ([]));
  const sample = async () => void (options.serverRss && rss.push(await options.serverRss()));
  await sample();
  const sampler = setInterval(() => void sample().catch(() => undefined), 500);
  try {
    const seen = {
      created: (/** @type {number} */ id) => void createdIds.push(id),
      deleted: (/** @type {number} */ id) => void deletedIds.add(id),
    };
    const instance = autocannon({
      url: options.baseUrl,
      connections: options.connections,
      amount: options.requests,
      timeout: 20,
      requests: requestsFor(options.mix, seen),
    });
    const shown = /** @type {any} */ (instance); // a Promise in its types, an Instance as well
    if (options.showProgress) autocannon.track(shown, { renderResultsTable: false });
    /** @type {autocannon.Result} */
    const result = await instance;
    await sample();
    const errors = result.errors + result.timeouts + result.non2xx;
    return { result, errors, rss, createdIds, deletedIds };
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
  const problems = run.createdIds.flatMap((id) => {
    const deleted = run.deletedIds.has(id);
    if (deleted && listed.has(id)) return [`#${id} is listed after its delete`];
    return !deleted && !listed.has(id) ? [`#${id} was created and is not listed`] : [];
  });
  if (new Set(run.createdIds).size !== run.createdIds.length)
    problems.push("an id was given twice");
  return { problems, listed: listed.size };
}

const mb = (/** @type {number} */ bytes) => `${(bytes / 1e6).toFixed(0)} MB`;

/** One paragraph a person can read, as docs/performance.md quotes it. */
export function describeLoad(/** @type {Awaited<ReturnType<typeof runLoad>>} */ run, mix = "") {
  const { requests, connections, duration, latency, errors, timeouts, non2xx } = run.result;
  const lines = [
    `${requests.total} requests (${mix}) at ${connections} connections in ` +
      `${duration.toFixed(1)} s: ${(requests.total / duration).toFixed(0)} req/s`,
    `latency p50 ${latency.p50} ms, p99 ${latency.p99} ms, max ${latency.max} ms`,
    `errors ${errors}, timeouts ${timeouts}, non-2xx ${non2xx}`,
  ];
  const [before = 0, ...rest] = run.rss;
  if (run.rss.length > 0) {
    const peak = Math.max(before, ...rest);
    lines.push(
      `server RSS: before ${mb(before)}, peak ${mb(peak)}, after ${mb(run.rss.at(-1) ?? 0)}`,
    );
  }
  return lines.join("\n");
}

/** @param {import("./lib/cli.mjs").FlagValues} values */
function readOptions(values) {
  const count = (/** @type {string} */ name) => {
    const number = Number(values[name]);
    if (Number.isInteger(number) && number >= 1) return number;
    throw new StopError(`--${name} must be a whole number from 1 up, not ${values[name]}`);
  };
  /** @type {"crud" | "create"} */
  const mix = values.mix;
  if (mix !== "crud" && mix !== "create") {
    throw new StopError(`--mix must be one of crud, create, not ${mix}`);
  }
  const rounds = count("rounds");
  return { requests: count("requests"), connections: count("connections"), rounds, mix };
}

/** @param {ReturnType<typeof readOptions>} options */
async function run(options) {
  // Lambda runs Node 24; the SDK's notice about older Node is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const { SetupError } = await import("./lib/setup-checks.mjs");
  const { formatMetricsSummary, summarizeMetrics } = await import("./lib/metrics-summary.mjs");
  const { build } = await import("./build.mjs");
  const { startLocalApi } = await import("./lib/offline.mjs");
  // Ctrl-C leaves through the exit hooks, which stop what this run started.
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => process.exit(130));
  /** @type {Record<string, unknown>[]} */
  let logLines = [];
  await build();
  const api = await startLocalApi({
    posts: "load-posts",
    keys: "load-idempotency-keys",
    onLogLine: (line) => void logLines.push(line),
  }).catch((error) => {
    throw error instanceof SetupError ? new StopError(error.message) : error;
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
      const said = after.problems.join("; ") || `${after.listed} posts, as the round left them`;
      console.log(`list through the client: ${said}\n`);
      // The last lines may still be on their way through the pipe.
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Round 1 keeps the start's lines: its readiness check is the list function's cold start.
      const since =
        round === 1 ? "the start, its one readiness list included" : "the round's start";
      const summary = formatMetricsSummary(summarizeMetrics(logLines));
      console.log(`metrics from the functions' log lines since ${since}:\n${summary}\n`);
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
