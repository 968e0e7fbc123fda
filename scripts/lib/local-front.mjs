// The local stand-in for API Gateway's edge, before serverless-offline: what the gateway does
// before and after a function that serverless-offline does otherwise (docs/running-locally.md).
import { once } from "node:events";
import { request as forward, createServer } from "node:http";
import { createRequire } from "node:module";
import { buffer } from "node:stream/consumers";

// Loaded untyped, as osls loads them: type-checking the config modules is not this file's job.
const config = createRequire(import.meta.url);
const { readOrigins } = config("../../config/cors.cjs");
const { GATEWAY_RESPONSES, allowOriginParameter } = config("../../config/gateway-responses.cjs");

/** The routes of serverless.yml: a method and path not among them is the gateway's 404. */
const ROUTES = [
  { path: /^\/api\/post\/?$/, methods: ["GET", "POST"] },
  { path: /^\/api\/post\/[^/]+\/?$/, methods: ["GET", "PUT", "DELETE"] },
];
/** The gateway's limit on a request's payload (REQUEST_TOO_LARGE above it). */
const GATEWAY_MAX_BYTES = 10 * 1024 * 1024;

/**
 * What the gateway answers itself for a request, as `{ status, body, headers }`, or undefined
 * when it goes to a function: a route or method the API lacks (a plain OPTIONS without CORS,
 * HEAD) is its 404, a payload over 10 MB its 413. `origins` is CORS_ORIGINS, read.
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
 * The request headers serverless-offline is to see. It parses a JSON body itself (handing the
 * function a JSON string's inner text, nothing for `null`, and bad UTF-8 as U+FFFD), so a JSON
 * body goes as bytes: it then hands the function base64, as the gateway does with the REST API's
 * binary media type (serverless.yml). Any other body that it would parse goes as text, and Range
 * goes not at all (the gateway ignores it).
 * @param {import("node:http").IncomingHttpHeaders} headers
 * @param {number} size
 */
export function forwardedHeaders(headers, size) {
  const { range: _range, "if-range": _ifRange, ...kept } = headers;
  if (size === 0) return kept;
  const type = headers["content-type"] ?? "";
  if (/^application\/json\s*(;|$)/i.test(type)) kept["content-type"] = "application/octet-stream";
  // What serverless-offline parses as JSON; a missing type counts as JSON there.
  else if (/^(application\/vnd\.api\+json\s*(;|$)|$)/i.test(type))
    kept["content-type"] = "text/plain";
  kept["content-length"] = String(size);
  return kept;
}

/**
 * Starts the front on `port` (0: one the OS picks), passing requests to serverless-offline at
 * `target` (its base URL). `corsOrigins` defaults to CORS_ORIGINS.
 * @param {{ target: string, port?: number, host?: string, corsOrigins?: string[] }} options
 */
export async function startLocalFront({ target, port = 0, host = "localhost", corsOrigins }) {
  const origins = corsOrigins ?? readOrigins();
  const to = new URL(target);
  const server = createServer(async (req, res) => {
    const body = await buffer(req);
    const method = req.method ?? "GET";
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const origin = req.headers.origin;
    const own = gatewayAnswer({ method, path, size: body.length, origin }, origins);
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
