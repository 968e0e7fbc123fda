// The local stand-in for API Gateway's edge, in front of serverless-offline: what the gateway does
// before and after a function that serverless-offline does otherwise (docs/running-locally.md).
// - A JSON body reaches the function as its exact bytes, base64 (isBase64Encoded), as the REST
//   API's binary media type makes the gateway do; serverless-offline would parse it first and hand
//   over the inner text of a JSON string, or nothing for `null`, and decode bad UTF-8 as U+FFFD.
// - A route or method the API does not have (plain OPTIONS without CORS, HEAD) is the gateway's
//   404; Range is ignored, as the gateway does; without CORS_ORIGINS, no CORS header at all.
import { once } from "node:events";
import { request as forward, createServer } from "node:http";
import { createRequire } from "node:module";
import { buffer } from "node:stream/consumers";

const { readOrigins } = createRequire(import.meta.url)("../../config/cors.cjs");
const { GATEWAY_RESPONSES, allowOriginParameter } = createRequire(import.meta.url)(
  "../../config/gateway-responses.cjs",
);

/** The routes of serverless.yml: a method and path not among them is the gateway's 404. */
const ROUTES = [
  { path: /^\/api\/post\/?$/, methods: ["GET", "POST"] },
  { path: /^\/api\/post\/[^/]+\/?$/, methods: ["GET", "PUT", "DELETE"] },
];
/** The gateway's limit on a request's payload (REQUEST_TOO_LARGE above it). */
const GATEWAY_MAX_BYTES = 10 * 1024 * 1024;
/** Content types serverless-offline parses as JSON itself; a missing one counts as JSON there. */
const PARSED_BY_OFFLINE = /^(application\/json|application\/vnd\.api\+json)\s*(;|$)/i;
/** The REST API's binary media type (serverless.yml): these bodies go to the function as bytes. */
const BINARY_MEDIA = /^application\/json\s*(;|$)/i;

/**
 * What the gateway answers itself for a request, as `{ status, body, headers }`, or undefined
 * when it goes to a function. `origins` is CORS_ORIGINS, read.
 * @param {{ method: string, path: string, size: number, origin?: string }} request
 * @param {string[]} origins
 */
export function gatewayAnswer({ method, path, size, origin }, origins) {
  const route = ROUTES.find((r) => r.path.test(path));
  const preflight = method === "OPTIONS" && route !== undefined && origins.length > 0;
  const type =
    !preflight && !route?.methods.includes(method)
      ? "MISSING_AUTHENTICATION_TOKEN"
      : size > GATEWAY_MAX_BYTES && "REQUEST_TOO_LARGE";
  if (!type) return undefined;
  const { status, body, headers } = GATEWAY_RESPONSES[type];
  /** @type {Record<string, string>} */
  const sent = {
    "content-type": "application/json",
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
    ...headers,
  };
  const allow = allowOriginParameter(origins);
  if (allow) {
    sent["access-control-allow-origin"] = allow.startsWith("'") ? allow.slice(1, -1) : origin;
    sent.vary = "Origin";
  }
  return { status, body, headers: sent };
}

/**
 * The request headers serverless-offline is to see: a JSON body marked as bytes (it then hands
 * the function base64, as the gateway with its binary media type does), any other body as text
 * it will not parse, and no Range (the gateway ignores it).
 * @param {import("node:http").IncomingHttpHeaders} headers
 * @param {number} size
 */
export function forwardedHeaders(headers, size) {
  const { range: _range, "if-range": _ifRange, ...kept } = headers;
  if (size === 0) return kept;
  const type = headers["content-type"] ?? "";
  if (BINARY_MEDIA.test(type)) kept["content-type"] = "application/octet-stream";
  else if (type === "" || PARSED_BY_OFFLINE.test(type)) kept["content-type"] = "text/plain";
  kept["content-length"] = String(size);
  return kept;
}

/**
 * Starts the front on `port` (0: one the OS picks), passing requests to serverless-offline at
 * `target` (its base URL). `corsOrigins` defaults to CORS_ORIGINS.
 * @param {{ target: string, port?: number, host?: string, corsOrigins?: string[] }} options
 * @returns {Promise<{ url: string, stop: () => Promise<void> }>}
 */
export async function startLocalFront({ target, port = 0, host = "localhost", corsOrigins }) {
  const origins = corsOrigins ?? readOrigins();
  const to = new URL(target);
  const server = createServer(async (req, res) => {
    const body = await buffer(req);
    const method = req.method ?? "GET";
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const own = gatewayAnswer(
      { method, path, size: body.length, origin: req.headers.origin },
      origins,
    );
    if (own) return void res.writeHead(own.status ?? 404, own.headers).end(own.body);
    const headers = forwardedHeaders(req.headers, body.length);
    const upstream = forward({ host: to.hostname, port: to.port, method, path: req.url, headers });
    upstream.once("response", (answer) => {
      // Without CORS_ORIGINS the gateway adds no CORS header; serverless-offline echoes any Origin.
      const kept = Object.entries(answer.headers).filter(
        ([name]) => origins.length > 0 || !name.startsWith("access-control-"),
      );
      res.writeHead(answer.statusCode ?? 502, Object.fromEntries(kept));
      answer.pipe(res);
    });
    upstream.once("error", () => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ detail: "Bad gateway: serverless-offline did not answer" }));
    });
    upstream.end(body);
  });
  await once(server.listen(port, host), "listening");
  const { port: bound } = /** @type {import("node:net").AddressInfo} */ (server.address());
  return {
    url: `http://${host}:${bound}`,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
