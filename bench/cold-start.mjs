// Bench section "cold start": fresh processes of the Lambda runtime's Node (bench/child.mjs), each
// importing one bundle (or a floor) and answering one event, in rounds that rotate the order so a
// drift in speed touches every variant alike; init and the first invoke are reported apart. What
// Lambda reaches over https is served over https here too: DynamoDB Local behind a TLS front, and
// the authorizer's token issuer. openssl makes a certificate for localhost at run time; a child
// trusts it through NODE_EXTRA_CA_CERTS, which Node reads when it starts.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { createServer as createTlsServer } from "node:tls";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { handlerNames as allHandlerNames } from "../scripts/build.mjs";
import { RUNTIME_NODE_VERSION, installRuntimeNode } from "../scripts/runtime-node.mjs";
import { apiEvent } from "../tests/helpers/api-event.mjs";
import { LIMITS, TABLES, benchDir, handlerCases, lambdaEnv, staging } from "./context.mjs";
import { log, medians, rounds, runNode } from "./util.mjs";

/** The functions that answer requests; the events' functions read a stream or a queue instead. */
const handlerNames = allHandlerNames.filter((name) => !/^(publish|deliver)-/.test(name));
/** @typedef {import("./util.mjs").RowSpec} RowSpec */
/** @typedef {{ answered: number, init: number, first: number, whole: number, wall: number }} ColdRun */

// The floors: an empty handler module; the get handler's storage call with no handler around it,
// over https as every handler is, and over plain http to show what https costs a cold start.
const EMPTY = "empty handler";
const SDK = "bare SDK GetItem (no handler)";
const SDK_HTTP = "bare SDK GetItem over plain http";
/** @type {Record<string, string>} */
const FLOORS = {
  [EMPTY]: `${benchDir}/empty-handler.mjs`,
  [SDK]: `${staging}/floor/index.mjs`,
  [SDK_HTTP]: `${staging}/floor/index.mjs`,
};

/** Listens on a free port of 127.0.0.1; resolves to its https URL. */
const listen = (/** @type {import("node:net").Server} */ server) =>
  new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address()))).then(
    (address) =>
      `https://localhost:${/** @type {import("node:net").AddressInfo} */ (address).port}`,
  );

/** The https front of DynamoDB Local (`dynamoEndpoint`, its http URL) and the token issuer. */
async function startTls(/** @type {string} */ dynamoEndpoint) {
  const dir = mkdtempSync(`${tmpdir()}/bench-tls-`);
  const [keyFile, caFile] = [`${dir}/key.pem`, `${dir}/cert.pem`];
  const subject = ["-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"];
  const req = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", ...subject];
  execFileSync("openssl", [...req, "-keyout", keyFile, "-out", caFile], { stdio: "ignore" });
  const tls = { key: readFileSync(keyFile), cert: readFileSync(caFile) };
  const { port, hostname } = new URL(dynamoEndpoint);
  const front = createTlsServer(tls, (socket) => {
    const upstream = connect(Number(port), hostname);
    const end = () => (socket.destroy(), upstream.destroy());
    socket.pipe(upstream).pipe(socket);
    for (const side of [socket, upstream]) side.once("error", end).once("close", end);
  });
  // The issuer's discovery document and keys, which the authorizer fetches at its first request.
  const keys = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: "bench", alg: "RS256", use: "sig" };
  /** @type {Record<string, unknown>} */
  const documents = { "/jwks": { keys: [jwk] } };
  const issuer = createHttpsServer(tls, (request, response) => {
    const body = documents[request.url ?? ""];
    response.writeHead(body ? 200 : 404, { "content-type": "application/json" });
    response.end(JSON.stringify(body ?? {}));
  });
  const [endpoint, issuerUrl] = [await listen(front), await listen(issuer)];
  const discovery = { issuer: issuerUrl, jwks_uri: `${issuerUrl}/jwks` };
  documents["/.well-known/openid-configuration"] = discovery;
  const claims = { scope: "posts/write", iss: issuerUrl, aud: "blog", sub: "bench" };
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid: "bench" })
    .setExpirationTime("1h")
    .sign(keys.privateKey);
  const stop = () => {
    front.close();
    issuer.closeAllConnections();
    issuer.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { endpoint, issuerUrl, caFile, token, stop };
}

/** @type {import("./context.mjs").Section} */
export const coldStart = {
  title: `cold start, on Node ${RUNTIME_NODE_VERSION} (the functions' runtime)`,
  /** Medians per variant (the floors and every handler), over the rounds run. */
  async measure({ endpoint }) {
    const tls = await startTls(endpoint);
    /** @type {Record<string, { table: string, status: number | string, event(i: number): unknown, env?: object }>} */
    const cases = {
      ...handlerCases("cold"),
      // A new list instance over the big table: its init builds the list. 10 MB of JSON is over
      // Lambda's 6 MB answer, so it is asked for gzipped, as a client would.
      "list-posts": {
        table: TABLES.listBig,
        status: 200,
        event: () => apiEvent({ method: "GET", headers: { "accept-encoding": "gzip" } }),
      },
      // Its first request fetches the issuer's document and keys and checks the token's signature.
      "authorize-writes": {
        table: TABLES.small,
        status: "policy",
        env: { AUTH_ISSUER_URL: tls.issuerUrl, AUTH_AUDIENCE: "blog" },
        event: () => ({
          type: "TOKEN",
          authorizationToken: `Bearer ${tls.token}`,
          methodArn: "arn:aws:execute-api:us-east-1:123456789012:api/bench/POST/api/post",
        }),
      },
    };
    const node = installRuntimeNode();
    /** @type {Record<string, ColdRun[]>} */
    const runs = {};
    const { runs: count, budgetMs, minRuns } = LIMITS.cold;
    const variants = [...Object.keys(FLOORS), ...handlerNames];
    try {
      const done = await rounds(count, budgetMs, variants, async (variant, round) => {
        const spec = cases[variant] ?? cases["get-post"]; // the floors are asked what get is
        if (!spec) throw new Error(`no request for ${variant}`);
        const module = FLOORS[variant] ?? `${staging}/${variant}/index.mjs`;
        const env =
          variant === SDK_HTTP
            ? lambdaEnv(endpoint, spec.table)
            : {
                ...lambdaEnv(tls.endpoint, spec.table),
                NODE_EXTRA_CA_CERTS: tls.caFile,
                ...spec.env,
              };
        const args = [`${benchDir}/child.mjs`, module, JSON.stringify(spec.event(round))];
        const { report, spawnedAt } = await runNode(args, env, LIMITS.childTimeoutMs, node);
        const { status, answered, init, first, whole, answeredAt } = report;
        if (status !== spec.status) throw new Error(`cold ${variant} answered ${status}`);
        (runs[variant] ??= []).push({ answered, init, first, whole, wall: answeredAt - spawnedAt });
      });
      if (done < minRuns) log(`cold start: only ${done} rounds in the budget (wanted ${minRuns})`);
      const summary = Object.entries(runs).map(([variant, r]) => [variant, medians(r)]);
      return { rounds: done, summary: Object.fromEntries(summary) };
    } finally {
      tls.stop();
    }
  },
  /** @param {{ rounds: number, summary: Record<string, ColdRun> }} cold */
  rows({ rounds: count, summary }) {
    const start = `cold start on Node ${RUNTIME_NODE_VERSION}, process start to answer`;
    // Each group: metric, the variants measured, the floor (a variant, or "whole": their own whole
    // run), the field compared, the target.
    /** @type {[string, string[], string, keyof ColdRun, string?][]} */
    const groups = [
      [`${start} (median of ${count})`, handlerNames, EMPTY, "answered", "<= 1.8x"],
      ["cold: init (import + top-level await; vs empty)", handlerNames, EMPTY, "init"],
      ["cold: first invoke after init (vs whole)", handlerNames, "whole", "first"],
      [start, [SDK, SDK_HTTP], EMPTY, "answered"],
      ["cold start, bare SDK GetItem: https vs plain http", [SDK], SDK_HTTP, "answered"],
      ["cold start vs bare SDK GetItem", handlerNames, SDK, "answered"],
      ["cold start, spawn to answer (wall)", handlerNames, EMPTY, "wall"],
    ];
    return groups.flatMap(([metric, names, base, key, target]) =>
      names.map((name) => {
        const floor = base === "whole" ? summary[name]?.whole : summary[base]?.[key];
        const value = summary[name]?.[key] ?? NaN;
        return /** @type {RowSpec} */ ([metric, name, value, floor ?? NaN, "ms", target]);
      }),
    );
  },
};

/**
 * Each handler's first invoke after init against its warm p50: the work init does should leave
 * the first request costing about what a warm one does. The cold list reads the 10,000-post
 * table, so it is held to the warm list of that table (the list cache section's), not of 20.
 * @param {{ summary: Record<string, ColdRun> }} cold @param {{ warmMs: number }} listCache
 * @param {Record<string, { handler: { p50: number } }>} warm
 * @returns {RowSpec[]}
 */
export function firstInvokeRows(cold, warm, listCache) {
  return handlerNames.flatMap((name) => {
    const [first, list] = [cold.summary[name]?.first, name === "list-posts"];
    const p50 = list ? listCache.warmMs : warm[name]?.handler.p50;
    if (first === undefined || p50 === undefined) return [];
    const metric = `cold: first invoke after init (vs warm p50${list ? ", 10,000 posts" : ""})`;
    return [[metric, name, first, p50, "ms", "<= 2x"]];
  });
}
