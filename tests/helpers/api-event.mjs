// API Gateway HTTP API (payload 2.0) events, as the gateway builds them, for the tests and the
// bench alike. Plain JavaScript, so the bench (plain Node) and the TypeScript tests share it.

/** @typedef {import("aws-lambda").APIGatewayProxyEventV2} ApiEvent */

/**
 * @typedef {object} EventOptions
 * @property {"GET" | "POST" | "PUT" | "DELETE"} method
 * @property {string | number} [postId]
 * @property {unknown} [body] A string is sent as is; anything else is JSON-encoded.
 * @property {boolean} [isBase64Encoded]
 * @property {Record<string, string>} [headers]
 */

/**
 * Builds an HTTP API event for `/api/post` or `/api/post/{post_pk}`.
 * @param {EventOptions} options
 * @returns {ApiEvent}
 */
export function apiEvent({ method, postId, body, isBase64Encoded = false, headers = {} }) {
  const routePath = postId === undefined ? "/api/post" : "/api/post/{post_pk}";
  const rawPath = postId === undefined ? "/api/post" : `/api/post/${postId}`;
  /** @type {ApiEvent} */
  const event = {
    version: "2.0",
    routeKey: `${method} ${routePath}`,
    rawPath,
    rawQueryString: "",
    headers: { "content-type": "application/json", ...headers },
    requestContext: {
      accountId: "123456789012",
      apiId: "api",
      domainName: "localhost",
      domainPrefix: "localhost",
      http: {
        method,
        path: rawPath,
        protocol: "HTTP/1.1",
        sourceIp: "127.0.0.1",
        userAgent: "test",
      },
      requestId: `req-${Math.random().toString(36).slice(2)}`,
      routeKey: `${method} ${routePath}`,
      stage: "$default",
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    isBase64Encoded,
  };
  if (postId !== undefined) event.pathParameters = { post_pk: String(postId) };
  if (body !== undefined) event.body = typeof body === "string" ? body : JSON.stringify(body);
  return event;
}
