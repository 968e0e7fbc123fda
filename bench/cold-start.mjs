// Bench section "cold start": fresh processes of the Lambda runtime's Node (bench/child.mjs), each
// answering one event, over https as on Lambda: DynamoDB Local behind a TLS front, and the token
// issuer, with a certificate the children trust through NODE_EXTRA_CA_CERTS.
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
import { LIMITS, REQUESTS, TABLES, benchDir, lambdaEnv, staging } from "./context.mjs";
import { statusOf, tableOf } from "./context.mjs";
import { median, ratioRow, rounds, runNode } from "./util.mjs";

/**
 * The functions that answer requests; the events' functions read a stream or a queue instead, and
 * the stage's guard the spending limit's ledger.
 */
const handlerNames = allHandlerNames.filter(
  (name) => !/^(publish|deliver|grant|stage)-/.test(name),
);
/** @typedef {{ answered: number, init: number, first: number, whole: number }} ColdRun */

// The floors: an empty handler, and the get handler's storage call with no handler around it.
const [EMPTY, SDK] = ["empty handler", "bare SDK GetItem (no handler)"];
/** @type {Record<string, string>} */
const FLOORS = { [EMPTY]: `${benchDir}/empty-handler.mjs`, [SDK]: `${staging}/floor/index.mjs` };

/** Listens on a free port of 127.0.0.1; its https URL. */
async function listen(/** @type {import("node:net").Server} */ server) {
  await once(server.listen(0, "127.0.0.1"), "listening");
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
  return `https://localhost:${port}`;
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
  // The issuer's keys at /jwks and its discovery document at any other path, which the
  // authorizer fetches at its first request.
  const keys = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: "bench", alg: "RS256", use: "sig" };
  const issuer = createHttpsServer(tls, ({ url, headers }, response) => {
    const at = `https://${headers.host}`;
    const body = url === "/jwks" ? { keys: [jwk] } : { issuer: at, jwks_uri: `${at}/jwks` };
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  const [endpoint, issuerUrl] = [await listen(front), await listen(issuer)];
  const claims = { scope: "posts/write", iss: issuerUrl, aud: "blog", sub: "bench" };
  const signer = new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: "bench" });
  const token = await signer.setExpirationTime("1h").sign(keys.privateKey);
  const stop = () => (front.close(), issuer.closeAllConnections(), issuer.close());
  return { endpoint, issuerUrl, caFile, token, stop };
}

/** @type {import("./context.mjs").Section} */
export const coldStart = {
  title: `cold start, on Node ${RUNTIME_NODE_VERSION} (the functions' runtime)`,
  /** Every run's timings per variant (the floors and every handler), over the rounds run. */
  async measure({ endpoint }) {
    const tls = await startTls(endpoint);
    // The authorizer's first request fetches the issuer's document and keys and checks the
    // token's signature. A new list instance over the big table builds the list at init; 10 MB of
    // JSON is over Lambda's 6 MB answer, so it is asked for gzipped, as a client would.
    const arn = "arn:aws:execute-api:us-east-1:123456789012:api/bench/POST/api/post";
    const authorize = { type: "TOKEN", authorizationToken: `Bearer ${tls.token}`, methodArn: arn };
    const authEnv = { AUTH_ISSUER_URL: tls.issuerUrl, AUTH_AUDIENCE: "blog" };
    const list = apiEvent({ method: "GET", headers: { "accept-encoding": "gzip" } });
    const trust = { NODE_EXTRA_CA_CERTS: tls.caFile };
    const node = installRuntimeNode();
    /** @type {Record<string, ColdRun[]>} */
    const runs = {};
    const { runs: count, budgetMs } = LIMITS.cold;
    const variants = [...Object.keys(FLOORS), ...handlerNames];
    const done = await rounds(count, budgetMs, variants, async (variant, round) => {
      // The floors are asked what get is.
      const request = (REQUESTS[variant] ?? REQUESTS["get-post"])(round);
      const [event, due, more] =
        variant === "authorize-writes"
          ? [authorize, "policy", authEnv]
          : variant === "list-posts"
            ? [list, 200, { TABLE_NAME: TABLES.listBig }]
            : [apiEvent(request), statusOf(request), {}];
      const env = { ...lambdaEnv(tls.endpoint, tableOf(variant)), ...trust, ...more };
      const module = FLOORS[variant] ?? `${staging}/${variant}/index.mjs`;
      const args = [`${benchDir}/child.mjs`, module, JSON.stringify(event)];
      const { status, ...timings } = await runNode(args, env, LIMITS.childTimeoutMs, node);
      if (status !== due) throw new Error(`cold ${variant} answered ${status}`);
      (runs[variant] ??= []).push(timings);
    });
    tls.stop();
    return { rounds: done, runs };
  },
  /**
   * Each variant against its floor; the first invoke after init also against the warm median
   * when that ran: init's work should leave the first request costing about what a warm one does.
   * @param {{ rounds: number, runs: Record<string, ColdRun[]> }} cold @param {Record<string, any>} results
   */
  rows({ rounds: count, runs }, results) {
    const start = `cold start on Node ${RUNTIME_NODE_VERSION}, process start to answer`;
    const of = (/** @type {string} */ variant, /** @type {keyof ColdRun} */ key) =>
      median(runs[variant]?.map((run) => run[key]) ?? []);
    // The list's warm figure is the list cache's, a gzipped list of the 10,000 posts its cold
    // start reads; the warm section's list is over 20.
    /** @type {(name: string) => number | undefined} */
    const warm = (name) =>
      name === "list-posts" ? results.listCache?.warm : results.warm?.[name]?.p50;
    const vsWarm = "cold: first invoke after init (vs warm p50; the list's of 10,000)";
    // Each handler's `key` against a floor variant's, or against `floor(name)` where it is known.
    /** @type {(metric: string, key: keyof ColdRun, floor: string | typeof warm, target?: string, names?: string[]) => import("./util.mjs").Row[]} */
    const each = (metric, key, floor, target, names = handlerNames) =>
      names.flatMap((name) => {
        const base = typeof floor === "string" ? of(floor, key) : floor(name);
        return base === undefined ? [] : ratioRow(metric, name, of(name, key), base, "ms", target);
      });
    return [
      ...each(`${start} (median of ${count})`, "answered", EMPTY, "<= 1.8x"),
      ...each("cold: init (import + top-level await; vs empty)", "init", EMPTY),
      ...each("cold: first invoke after init (vs whole)", "first", (name) => of(name, "whole")),
      ...each(vsWarm, "first", warm, "<= 2x"),
      ...each(start, "answered", EMPTY, "info", [SDK]),
      ...each("cold start vs bare SDK GetItem", "answered", SDK),
    ];
  },
};
