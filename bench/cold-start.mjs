// Bench section "cold start": fresh processes of the Lambda runtime's Node (bench/cold-child.mjs),
// each importing one bundle (or a floor) and answering one event, reaching DynamoDB Local over
// https as Lambda reaches DynamoDB (bench/tls-front.mjs); rounds rotate the order so a
// drift in speed touches every variant alike. A handler's init (the import, its top-level await
// included) and its first invoke are reported apart: init does the first request's storage work.
import { handlerNames as allHandlerNames } from "../scripts/build.mjs";
import { apiEvent } from "../tests/helpers/api-event.mjs";
import { RUNTIME_NODE_VERSION, installRuntimeNode } from "../scripts/runtime-node.mjs";
import { LIMITS, TABLES, benchDir, handlerCases, lambdaEnv, staging } from "./context.mjs";
import { startTlsServices } from "./tls-front.mjs";
import { log, medians, ratioRow, rounds, runNode } from "./util.mjs";

/** The functions that answer requests; the events' functions read a stream or a queue instead. */
const handlerNames = allHandlerNames.filter(
  (name) => name !== "publish-events" && name !== "deliver-webhooks",
);

/** @typedef {{ answeredMs: number, importedMs: number, startedMs: number, spawnToAnswerMs: number, spawnToExitMs: number }} ColdRun */

// The floors: an empty handler module; the get handler's storage call with no handler around it,
// over https as every handler is, and over plain http to show what https costs a cold start.
const [EMPTY, SDK, SDK_HTTP] = [
  "empty handler",
  "bare SDK GetItem (no handler)",
  "bare SDK GetItem over plain http",
];
/** @type {Record<string, string>} */
const FLOORS = {
  [EMPTY]: `${benchDir}/empty-handler.mjs`,
  [SDK]: `${staging}/floor/index.mjs`,
  [SDK_HTTP]: `${staging}/floor/index.mjs`,
};

/**
 * The authorizer's case: a TOKEN event with a write token of the bench's issuer, answered with a
 * policy (the child reports "policy"). It runs as on Lambda: at its first request it fetches the
 * issuer's discovery document and keys over https, and checks the token's signature.
 * @param {Awaited<ReturnType<typeof startTlsServices>>} tls
 */
const authorizerCase = async (tls) => {
  const event = {
    type: "TOKEN",
    authorizationToken: `Bearer ${await tls.writeToken()}`,
    methodArn: "arn:aws:execute-api:us-east-1:123456789012:api/bench/POST/api/post",
  };
  const env = { AUTH_ISSUER_URL: tls.issuerUrl, AUTH_AUDIENCE: "blog" };
  return { table: TABLES.small, status: "policy", env, event: () => event };
};

/** @type {import("./context.mjs").Section} */
export const coldStart = {
  title: `cold start, on Node ${RUNTIME_NODE_VERSION} (the functions' runtime)`,
  /** Medians per variant (the floors and every handler), over the rounds run. */
  async measure({ endpoint }) {
    // Over https, as on Lambda: the floors and the handlers alike.
    const tls = await startTlsServices(endpoint);
    /** @type {Record<string, { table: string, status: number | string, env?: Record<string, string>, event: (i: number) => unknown }>} */
    const cases = { ...handlerCases("cold"), "authorize-writes": await authorizerCase(tls) };
    // A new list instance over the big table: its init builds the list the first invoke answers.
    const list = cases["list-posts"];
    // 10 MB of JSON is over Lambda's 6 MB answer: it is asked for gzipped, as a client would.
    const event = () => apiEvent({ method: "GET", headers: { "accept-encoding": "gzip" } });
    if (list) cases["list-posts"] = { ...list, table: TABLES.listBig, event };
    const { runs: count, budgetMs, minRuns } = LIMITS.cold;
    const node = installRuntimeNode();
    /** @type {Record<string, ColdRun[]>} */
    const runs = {};
    const variants = [...Object.keys(FLOORS), ...handlerNames];
    let done;
    try {
      done = await rounds(count, budgetMs, variants, async (variant, round) => {
        const spec = cases[variant] ?? cases["get-post"]; // the floors are asked what get is
        if (!spec) throw new Error(`no request for ${variant}`);
        const module = FLOORS[variant] ?? `${staging}/${variant}/index.mjs`;
        const args = [`${benchDir}/cold-child.mjs`, module, JSON.stringify(spec.event(round))];
        const env =
          variant === SDK_HTTP
            ? lambdaEnv(endpoint, spec.table)
            : {
                ...lambdaEnv(tls.endpoint, spec.table),
                NODE_EXTRA_CA_CERTS: tls.caFile,
                ...spec.env,
              };
        const run = await runNode(args, env, LIMITS.childTimeoutMs, node);
        const {
          status,
          answered: answeredMs,
          imported: importedMs,
          started: startedMs,
        } = run.report;
        if (status !== spec.status) throw new Error(`cold ${variant} answered ${status}`);
        const [spawnToAnswerMs, spawnToExitMs] = [run.firstLineMs, run.exitMs];
        (runs[variant] ??= []).push({
          answeredMs,
          importedMs,
          startedMs,
          spawnToAnswerMs,
          spawnToExitMs,
        });
      });
    } finally {
      await tls.stop();
    }
    if (done < minRuns) log(`cold start: only ${done} rounds in the budget (wanted ${minRuns})`);
    const summary = Object.fromEntries(Object.entries(runs).map(([v, r]) => [v, medians(r)]));
    return { rounds: done, summary };
  },
  /**
   * Each handler against the empty handler, the bare SDK call against the empty handler, each
   * handler against the bare SDK call, and each handler's wall time from the spawn.
   * @param {{ rounds: number, summary: Record<string, ColdRun> }} cold
   */
  rows({ rounds: count, summary }) {
    /** @param {string} metric @param {string[]} names @param {string} base @param {keyof ColdRun} key */
    const rows = (metric, names, base, key = "answeredMs", target = "info") =>
      names.map((name) => {
        const [value, floor] = [summary[name]?.[key] ?? NaN, summary[base]?.[key] ?? NaN];
        return ratioRow(metric, name, value, floor, "ms", target);
      });
    const start = `cold start on Node ${RUNTIME_NODE_VERSION}, process start to answer`;
    const phases = handlerNames.flatMap((name) => {
      const run = summary[name];
      const empty = summary[EMPTY];
      if (!run || !empty) return [];
      const init = run.importedMs - run.startedMs;
      return [
        ratioRow(
          "cold: init (import + top-level await; vs empty)",
          name,
          init,
          empty.importedMs - empty.startedMs,
          "ms",
        ),
        ratioRow(
          "cold: first invoke after init (vs whole)",
          name,
          run.answeredMs - run.importedMs,
          run.answeredMs - run.startedMs,
          "ms",
        ),
      ];
    });
    return [
      ...rows(`${start} (median of ${count})`, handlerNames, EMPTY, "answeredMs", "<= 1.8x"),
      ...phases,
      ...rows(start, [SDK, SDK_HTTP], EMPTY),
      ...rows("cold start, bare SDK GetItem: https vs plain http", [SDK], SDK_HTTP),
      ...rows("cold start vs bare SDK GetItem", handlerNames, SDK),
      ...rows("cold start, spawn to answer (wall)", handlerNames, EMPTY, "spawnToAnswerMs"),
    ];
  },
};

/**
 * Each handler's first invoke after init against its warm p50: the work init does should leave
 * the first request costing about what a warm one does. The cold list reads the 10,000-post
 * table, so it is held to the warm list of that table (the list cache section's), not of 20.
 * @param {{ summary: Record<string, ColdRun> }} cold
 * @param {Record<string, { handler: { p50: number } }>} warm
 * @param {{ warmMs: number }} listCache
 */
export function firstInvokeRows(cold, warm, listCache) {
  return handlerNames.flatMap((name) => {
    const run = cold.summary[name];
    const p50 = name === "list-posts" ? listCache.warmMs : warm[name]?.handler.p50;
    if (!run || p50 === undefined) return [];
    const first = run.answeredMs - run.importedMs;
    const metric = `cold: first invoke after init (vs warm p50${name === "list-posts" ? ", 10,000 posts" : ""})`;
    return [ratioRow(metric, name, first, p50, "ms", "<= 2x")];
  });
}
