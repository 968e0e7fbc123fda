// `npm run smoke`: a black-box check of a running service of this API (docs/deploying.md).
import { connect } from "./lib/api.mjs";
import { StopError, isUrl, runWithFlags, tokenFlag, urlFlag } from "./lib/cli.mjs";

const USAGE = `Usage: npm run smoke -- [options]

Checks a running service of this API end to end, one line per step (docs/deploying.md says what
each expects), and deletes every post it made, also when a step fails or the run is interrupted.

Options:
  --url URL          the service (default http://localhost:$PORT, 3000
                     when PORT is unset: npm start)
  --token T          bearer token for writes (default: $API_TOKEN; npm run token prints one)
  --time-zone ZONE   the service's TIME_ZONE, an IANA zone (default: $TIME_ZONE, else UTC)
  --origin O         a browser origin CORS_ORIGINS allows: its preflight and answers are checked
  -h, --help         this text

Exit codes: 0 every step passed; 1 a step failed (its line says what differed); 2 a bad option;
130 interrupted. The checks stop after 50 s, the clean-up after 10 s more.`;

/** How long the steps may take in all, then the clean-up, and one attempt of a request. */
const STEPS_BUDGET_MS = 50_000;
const CLEANUP_BUDGET_MS = 10_000;
const REQUEST_TIMEOUT_MS = 10_000;

/** @param {import("./lib/cli.mjs").FlagValues} values */
function readOptions({ url, token, origin, "time-zone": zone = process.env.TIME_ZONE || "UTC" }) {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
  } catch {
    throw new StopError(`--time-zone must be an IANA time zone such as Europe/Paris, not ${zone}`);
  }
  if (origin !== undefined && !isUrl(origin)) {
    throw new StopError(`--origin must be an origin such as https://blog.example, not ${origin}`);
  }
  return { url: urlFlag("url", url), zone, origin, token: tokenFlag({ token }) };
}

/** @param {ReturnType<typeof readOptions>} options */
async function run(options) {
  // One attempt's limit, and few retries: a check of a service, not a copy to see through.
  const client = { name: "The service", attempts: 3, timeoutMs: REQUEST_TIMEOUT_MS };
  const { blog } = await connect(options.url, { ...client, token: options.token });
  // Loaded after connect, which says to run npm install when the project's packages are missing.
  const { runSteps } = await import("./lib/smoke/checks.mjs");
  const interrupted = new AbortController();
  process.once("SIGINT", () => interrupted.abort()).once("SIGTERM", () => interrupted.abort());
  const ctx = {
    ...options,
    blog,
    anonymous: (await connect(options.url, client)).blog,
    signal: AbortSignal.any([interrupted.signal, AbortSignal.timeout(STEPS_BUDGET_MS)]),
    /** @type {Set<number>} */
    created: new Set(),
  };
  console.log(`smoke: ${options.url} (timestamps in ${options.zone})`);
  let failed = 0;
  try {
    failed = await runSteps(ctx);
  } finally {
    const signal = AbortSignal.timeout(CLEANUP_BUDGET_MS);
    const left = /** @type {string[]} */ ([]);
    for (const id of ctx.created) {
      await blog.deletePost(id, { signal }).catch(() => left.push(`#${id}`));
    }
    if (left.length > 0) {
      failed += 1;
      console.log(`FAIL  clean-up: could not delete ${left.join(", ")}`);
    }
  }
  if (interrupted.signal.aborted) {
    console.log("smoke: interrupted; the posts it made are deleted");
    return 130;
  }
  if (ctx.signal.aborted) {
    console.log(`FAIL  time: the steps took over ${STEPS_BUDGET_MS / 1000} s`);
    return 1;
  }
  console.log(failed === 0 ? "smoke: every step passed" : `smoke: ${failed} step(s) failed`);
  return failed === 0 ? 0 : 1;
}

await runWithFlags({
  name: "smoke",
  usage: USAGE,
  flags: {
    url: { type: "string" },
    token: { type: "string" },
    "time-zone": { type: "string" },
    origin: { type: "string" },
  },
  read: readOptions,
  run,
});
