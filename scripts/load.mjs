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
 * Sends `requests` over `connections` with autocannon, each connection creating, reading,
 * updating, listing and deleting a post in turn (so the table stays small), with autocannon's
 * bar with `showProgress`, sampling the server's memory (`serverRss`, bytes) twice a second.
 * @param {{ baseUrl: string, requests: number, connections: number,
 *   serverRss?: () => Promise<number>, showProgress?: boolean }} options
 */
export async function runLoad(options) {
  const rss = /** @type {number[]} */ ([]);
  const createdIds = /** @type {number[]} */ ([]);
  const deletedIds = new Set(/** @type {number[]} */ ([]));
  const sample = async () => void (options.serverRss && rss.push(await options.serverRss()));
  await sample();
  const sampler = setInterval(() => void sample().catch(() => undefined), 500);
  const body = JSON.stringify({ title: "Load", content: "A post made by npm run load" });
  try {
    const instance = autocannon({
      url: options.baseUrl,
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
    const result = await instance;
    await sample();
    const errors = result.errors + result.timeouts + result.non2xx;
    return { result, errors, rss, createdIds, deletedIds };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * What the table holds after a run, read through the API's client: every post it made and did not
 * delete, once, and none that it deleted (a connection whose requests ran out mid-cycle leaves its
 * last post). Returns the problems, and how many posts are listed.
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

/** @param {{ requests: number, connections: number }} options */
async function run(options) {
  // Lambda runs Node 24; the SDK's notice about older Node is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
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
    const load = await runLoad({
      ...options,
      baseUrl: api.baseUrl,
      serverRss: api.rss,
      showProgress: true,
    });
    console.log(autocannon.printResult(load.result));
    const mb = (/** @type {number=} */ bytes = 0) => `${(bytes / 1e6).toFixed(0)} MB`;
    const [before, after, peak] = [load.rss[0], load.rss.at(-1), Math.max(...load.rss)];
    console.log(`server RSS: before ${mb(before)}, peak ${mb(peak)}, after ${mb(after)}`);
    const listed = await checkAfterLoad(api.baseUrl, load);
    const said = listed.problems.join("; ") || `${listed.listed} posts, as the run left them`;
    console.log(`list through the client: ${said}\n`);
    // The last log lines may still be on their way through the pipe.
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Since the start: the readiness check's list was the list function's cold start.
    console.log("metrics from the functions' log lines, the readiness check's list included:");
    console.table(summarizeMetrics(logLines));
    return load.errors > 0 || listed.problems.length > 0 ? 1 : 0;
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
