// Bench section "cold start": fresh processes of the Lambda runtime's Node (bench/child.mjs), each
// importing one bundle (or a floor) and answering one event, in rounds that rotate the order.
// What Lambda reaches over https is served over https here too: DynamoDB Local behind a TLS front,
// and the authorizer's token issuer, with a certificate openssl makes for localhost at run time,
// which a child trusts through NODE_EXTRA_CA_CERTS (Node reads it when it starts).
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import { connect } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { handlerNames as allHandlerNames } from "../scripts/build.mjs";
import { RUNTIME_NODE_VERSION, installRuntimeNode } from "../scripts/runtime-node.mjs";
import { apiEvent } from "../tests/helpers/api-event.mjs";
import { LIMITS, TABLES, benchDir, HANDLER_CASES, lambdaEnv, staging } from "./context.mjs";
import { log, medians, ratioRow, rounds, runNode } from "./util.mjs";

/** The functions that answer requests; the events' functions read a stream or a queue instead. */
const handlerNames = allHandlerNames.filter((name) => !/^(publish|deliver)-/.test(name));
/** @typedef {{ answered: number, init: number, first: number, whole: number }} ColdRun */

// The floors: an empty handler module, and the get handler's storage call with no handler around it.
const [EMPTY, SDK] = ["empty handler", "bare SDK GetItem (no handler)"];
/** @type {Record<string, string>} */
const FLOORS = { [EMPTY]: `${benchDir}/empty-handler.mjs`, [SDK]: `${staging}/floor/index.mjs` };

/** Listens on a free port of 127.0.0.1; its https URL. */
async function listen(/** @type {import("node:net").Server} */ server) {
  await once(server.listen(0, "127.0.0.1"), "listening");
  return `https://localhost:${/** @type {import("node:net").AddressInfo} */ (server.address()).port}`;
}

/**
 * The https front of DynamoDB Local (`dynamoEndpoint`, its http URL) and the token issuer, with
 * their certificate's file (in the staging folder, which the bench removes) and a token it signed.
 */
async function startTls(/** @type {string} */ dynamoEndpoint) {
  const [keyFile, caFile] = [`${staging}/tls-key.pem`, `${staging}/tls-cert.pem`];
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
  documents["/.well-known/openid-configuration"] = {
    issuer: issuerUrl,
    jwks_uri: `${issuerUrl}/jwks`,
  };
  const claims = { scope: "posts/write", iss: issuerUrl, aud: "blog", sub: "bench" };
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid: "bench" })
    .setExpirationTime("1h")
    .sign(keys.privateKey);
  const stop = () => (front.close(), issuer.closeAllConnections(), issuer.close());
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
      ...HANDLER_CASES,
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
    try {
      const variants = [...Object.keys(FLOORS), ...handlerNames];
      const done = await rounds(count, budgetMs, variants, async (variant, round) => {
        const spec = cases[variant] ?? cases["get-post"]; // the floors are asked what get is
        if (!spec) throw new Error(`no request for ${variant}`);
        const env = { ...lambdaEnv(tls.endpoint, spec.table), NODE_EXTRA_CA_CERTS: tls.caFile };
        const module = FLOORS[variant] ?? `${staging}/${variant}/index.mjs`;
        const args = [`${benchDir}/child.mjs`, module, JSON.stringify(spec.event(round))];
        const report = await runNode(args, { ...env, ...spec.env }, LIMITS.childTimeoutMs, node);
        const { status, ...timings } = report;
        if (status !== spec.status) throw new Error(`cold ${variant} answered ${status}`);
        (runs[variant] ??= []).push(timings);
      });
      if (done < minRuns) log(`cold start: only ${done} rounds in the budget (wanted ${minRuns})`);
      const summary = Object.entries(runs).map(([variant, r]) => [variant, medians(r)]);
      return { rounds: done, summary: Object.fromEntries(summary) };
    } finally {
      tls.stop();
    }
  },
  /**
   * Each variant against its floor; the first invoke after init also against the warm p50 (the
   * list's over the 10,000-post table, as its cold start reads), when those sections ran: the work
   * init does should leave the first request costing about what a warm one does.
   * @param {{ rounds: number, summary: Record<string, ColdRun> }} cold @param {Record<string, any>} results
   */
  rows({ rounds: count, summary }, results) {
    const start = `cold start on Node ${RUNTIME_NODE_VERSION}, process start to answer`;
    const of = (/** @type {string} */ variant, /** @type {keyof ColdRun} */ key) =>
      summary[variant]?.[key] ?? NaN;
    /** @typedef {(name: string, key: keyof ColdRun) => number | undefined} Floor */
    const variant = (/** @type {string} */ floor) =>
      /** @type {Floor} */ ((_, key) => of(floor, key));
    /** @type {Floor} */
    const warm = (name) =>
      name === "list-posts" ? results.listCache?.warm : results.warm?.[name]?.p50;
    /** Rows of `names`' `key` against `floor`, leaving out those without one. */
    const each = (
      /** @type {string} */ metric,
      /** @type {string[]} */ names,
      /** @type {keyof ColdRun} */ key,
      /** @type {Floor} */ floor,
      target = "info",
    ) =>
      names.flatMap((name) => {
        const base = floor(name, key);
        return base === undefined
          ? []
          : [ratioRow(metric, name, of(name, key), base, "ms", target)];
      });
    const all = handlerNames;
    return [
      ...each(`${start} (median of ${count})`, all, "answered", variant(EMPTY), "<= 1.8x"),
      ...each("cold: init (import + top-level await; vs empty)", all, "init", variant(EMPTY)),
      ...each("cold: first invoke after init (vs whole)", all, "first", (name) =>
        of(name, "whole"),
      ),
      ...each("cold: first invoke after init (vs warm p50)", all, "first", warm, "<= 2x"),
      ...each(start, [SDK], "answered", variant(EMPTY)),
      ...each("cold start vs bare SDK GetItem", all, "answered", variant(SDK)),
    ];
  },
};
