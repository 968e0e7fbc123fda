// The smoke's HTTP: one request at a time, bytes as they came (no automatic gunzip, so gzip can be
// checked), a time limit per request, and the run's abort signal.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

/** @typedef {{ status: number, headers: import("node:http").IncomingHttpHeaders, body: Buffer }} RawAnswer */

/** One request's longest wait, connection included. */
export const REQUEST_TIMEOUT_MS = 10_000;

/**
 * Sends one request to `base` + `path` (a base URL's own path is kept).
 * @param {string} base
 * @param {string} method
 * @param {string} path
 * @param {{ headers?: Record<string, string>, body?: string, signal?: AbortSignal }} [options]
 * @returns {Promise<RawAnswer>}
 */
export function send(base, method, path, { headers = {}, body, signal } = {}) {
  const url = new URL(base.replace(/\/+$/, "") + path);
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  const allHeaders =
    body === undefined
      ? headers
      : {
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
          ...headers,
        };
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: allHeaders, timeout: REQUEST_TIMEOUT_MS, signal });
    req.on("response", (res) => {
      /** @type {Buffer[]} */
      const chunks = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on("error", reject);
    });
    req.on("timeout", () =>
      req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)),
    );
    req.on("error", reject);
    req.end(body);
  });
}
