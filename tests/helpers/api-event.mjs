// API Gateway REST API (Lambda proxy, payload 1.0) events, as the gateway builds them on the
// stage's default URL, for the tests and the bench alike. Plain JavaScript, so the bench (plain
// Node) and the TypeScript tests share it.

/** @typedef {import("aws-lambda").APIGatewayProxyEvent} ApiEvent */

/** The stage the events come through: its name prefixes the path on the default URL. */
export const EVENT_STAGE = "dev";

/**
 * @typedef {object} EventOptions
 * @property {"GET" | "POST" | "PUT" | "DELETE"} method
 * @property {string | number} [postId]
 * @property {unknown} [body] A string is sent as is; anything else is JSON-encoded.
 * @property {boolean} [isBase64Encoded]
 * @property {Record<string, string>} [headers]
 */

/**
 * Builds a REST API event for `/api/post` or `/api/post/{post_pk}`.
 * @param {EventOptions} options
 * @returns {ApiEvent}
 */
export function apiEvent({ method, postId, body, isBase64Encoded = false, headers = {} }) {
  const resource = postId === undefined ? "/api/post" : "/api/post/{post_pk}";
  const path = postId === undefined ? "/api/post" : `/api/post/${postId}`;
  const allHeaders = { "content-type": "application/json", ...headers };
  /** @type {ApiEvent} */
  const event = {
    resource,
    path,
    httpMethod: method,
    headers: allHeaders,
    multiValueHeaders: Object.fromEntries(
      Object.entries(allHeaders).map(([name, value]) => [name, [value]]),
    ),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: postId === undefined ? null : { post_pk: String(postId) },
    stageVariables: null,
    requestContext: {
      accountId: "123456789012",
      apiId: "api",
      authorizer: null,
      domainName: "api.execute-api.us-east-1.amazonaws.com",
      domainPrefix: "api",
      httpMethod: method,
      identity: /** @type {ApiEvent["requestContext"]["identity"]} */ ({
        sourceIp: "127.0.0.1",
        userAgent: "test",
      }),
      path: `/${EVENT_STAGE}${path}`,
      protocol: "HTTP/1.1",
      requestId: `req-${Math.random().toString(36).slice(2)}`,
      requestTimeEpoch: Date.now(),
      resourceId: "resource",
      resourcePath: resource,
      stage: EVENT_STAGE,
    },
    body: body === undefined ? null : typeof body === "string" ? body : JSON.stringify(body),
    isBase64Encoded,
  };
  return event;
}
