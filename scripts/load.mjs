// `npm run load`: a bounded load test of the API served as `npm start` serves it, on a stack of its
// own; USAGE below says what it prints and checks.
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { connect, using } from "./lib/api.mjs";
import { StopError, runWithFlags } from "./lib/cli.mjs";

const USAGE = `Usage: npm run load -- [options]

Builds the bundles, starts an in-memory DynamoDB Local and serverless-offline on free ports with
npm start's options, and sends the requests with autocannon: each connection creates a post,
reads it, updates it, lists every post and deletes it, in turn. Prints autocannon's results, the
server's memory and the functions' metrics, checks the list through the API's client (every post
created is there, none deleted is), then stops everything.

Options:
  --requests N      requests in all, spread over the connections (default 3000)
  --connections N   requests in flight at once (default 16)
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
 * Sends `requests` over `connections` to `server` with autocannon, each connection creating,
 * reading, updating, listing and deleting a post in turn (so the table stays small), with
 * autocannon's bar with `showProgress`, sampling the server's memory (`rss`, bytes) twice a
 * second. Then reads the list through the API's client: `problems` names each post it made and
 * did not delete that is missing, and each it deleted that is listed (a connection whose requests
 * ran out mid-cycle leaves its last post); `listed` counts the posts listed.
 * @param {{ baseUrl: string, rss?: () => Promise<number> }} server
 * @param {{ requests: number, connections: number, showProgress?: boolean }} options
 */
export async function runLoad(server, options) {
  const rss = /** @type {number[]} */ ([]);
  const createdIds = /** @type {number[]} */ ([]);
  const deletedIds = new Set(/** @type {number[]} */ ([]));
  const sample = async () => void (server.rss && rss.push(await server.rss()));
  await sample();
  const sampler = setInterval(() => void sample().catch(() => undefined), 500);
  const body = JSON.stringify({ title: "Load", content: "A post made by npm run load" });
  const instance = autocannon({
    url: server.baseUrl,
    connections: options.connections,
    amount: options.requests,
    timeout: 20,
    requests: [
      {
        method: "POST",
        path: "/api/post",
        headers: json,
        body,
        onResponse: (status, answer, /** @type {Connection} */ context) =>
          void (status === 201 && createdIds.push((context.id = JSON.parse(answer).id))),
      },
      { method: "GET", setupRequest: atPost },
      { method: "PUT", headers: json, body: '{"title":"Load, updated"}', setupRequest: atPost },
      { method: "GET", path: "/api/post" },
      {
        method: "DELETE",
        setupRequest: atPost,
        onResponse: (status, _body, /** @type {Connection} */ context) =>
          void (status === 204 && context.id && deletedIds.add(context.id)),
      },
    ],
  });
  // A Promise in its types, an Instance as well.
  if (options.showProgress)
    autocannon.track(/** @type {any} */ (instance), { renderResultsTable: false });
  /** @type {autocannon.Result} */
  const result = await Promise.resolve(instance).finally(() => clearInterval(sampler));
  await sample();
  const errors = result.errors + result.timeouts + result.non2xx;
  const service = await connect(server.baseUrl, { name: "The API" });
  const list = await using(service, (blog) => blog.listPosts());
  if (list.notModified) throw new StopError("a list without If-None-Match answered 304");
  const listed = new Set(list.posts.map((post) => post.id));
  const problems = createdIds.flatMap((id) => {
    const deleted = deletedIds.has(id);
    if (deleted && listed.has(id)) return [`#${id} is listed after its delete`];
    return !deleted && !listed.has(id) ? [`#${id} was created and is not listed`] : [];
  });
  if (new Set(createdIds).size !== createdIds.length) problems.push("an id was given twice");
  return { result, errors, rss, createdIds, deletedIds, problems, listed: listed.size };
}

/** @param {{ requests: number, connections: number }} options */
async function run(options) {
  const { SetupError } = await import("./lib/setup-checks.mjs");
  const { summarizeMetrics } = await import("./lib/metrics-summary.mjs");
  const { build } = await import("./build.mjs");
  const { startLocalApi } = await import("./lib/offline.mjs");
  // Ctrl-C leaves through the exit hooks, which stop what this run started.
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => process.exit(130));
  /** @type {Record<string, unknown>[]} */
  const logLines = [];
  await build();
  const api = await startLocalApi({
    posts: "load-posts",
    keys: "load-idempotency-keys",
    onLogLine: (line) => void logLines.push(line),
  }).catch((error) => {
    throw error instanceof SetupError ? new StopError(error.message) : error;
  });
  try {
    const load = await runLoad(api, { ...options, showProgress: true });
    console.log(autocannon.printResult(load.result));
    const mb = (/** @type {number=} */ bytes = 0) => `${(bytes / 1e6).toFixed(0)} MB`;
    const [before, after, peak] = [load.rss[0], load.rss.at(-1), Math.max(...load.rss)];
    console.log(`server RSS: before ${mb(before)}, peak ${mb(peak)}, after ${mb(after)}`);
    const said = load.problems.join("; ") || `${load.listed} posts, as the run left them`;
    console.log(`list through the client: ${said}\n`);
    // The last log lines may still be on their way through the pipe.
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Since the start: the readiness check's list was the list function's cold start.
    console.log("metrics from the functions' log lines, the readiness check's list included:");
    console.table(summarizeMetrics(logLines));
    return load.errors > 0 || load.problems.length > 0 ? 1 : 0;
  } finally {
    await api.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runWithFlags({
    name: "load",
    usage: USAGE,
    flags: {
      requests: { type: "string", default: "3000" },
      connections: { type: "string", default: "16" },
    },
    read: (values) => {
      const count = (/** @type {string} */ name) => {
        const number = Number(values[name]);
        if (Number.isInteger(number) && number >= 1) return number;
        throw new StopError(`--${name} must be a whole number from 1 up, not ${values[name]}`);
      };
      return { requests: count("requests"), connections: count("connections") };
    },
    run,
  });
}
