// The gateway's own answers (an unknown route, a throttle, a refused token, a body too large)
// in the service's shape: `{"detail": …}` with the right status, JSON and CORS headers, so a
// browser can read them as it reads the functions' answers.
const { readOrigins } = require("./cors.cjs");
const { parseSpendLimitUsd } = require("../lib/shared/settings.ts");

/** `{"detail": …}` with a fixed message, as a mapping template (no `$` inside). */
const fixed = (detail) => JSON.stringify({ detail });
/** `{"detail": …}` with API Gateway's own message, which the variable already quotes. */
const GATEWAY_MESSAGE = '{"detail": $context.error.messageString}';

/** Each answer the gateway gives by itself: its type, status and body. */
const GATEWAY_RESPONSES = {
  // A REST API answers an unknown path or method 403 "Missing Authentication Token": it is 404.
  MISSING_AUTHENTICATION_TOKEN: { status: 404, body: fixed("Not found: no such route") },
  RESOURCE_NOT_FOUND: { status: 404, body: fixed("Not found: no such route") },
  UNAUTHORIZED: {
    status: 401,
    body: fixed("Unauthorized: send a valid bearer token in Authorization"),
    headers: { "WWW-Authenticate": "Bearer" },
  },
  ACCESS_DENIED: { status: 403, body: fixed("Forbidden: the token does not allow this") },
  THROTTLED: {
    status: 429,
    body: fixed("Too many requests: slow down and retry"),
    headers: { "Retry-After": "1" },
  },
  REQUEST_TOO_LARGE: { status: 413, body: fixed("Request too large for the API (10 MB at most)") },
  DEFAULT_4XX: { body: GATEWAY_MESSAGE },
  DEFAULT_5XX: { body: GATEWAY_MESSAGE },
};

/**
 * The Access-Control-Allow-Origin of the gateway's answers, as a response parameter: one
 * origin or `*` as it is; several, the request's own Origin. A gateway answer cannot choose
 * among a list, and echoing is safe here: these bodies are fixed messages that carry no data
 * and the API uses no cookies, so no other origin can learn anything by reading them.
 */
function allowOriginParameter(origins) {
  if (origins.length === 0) return undefined;
  if (origins.length === 1) return `'${origins[0]}'`;
  return "method.request.header.origin";
}

/**
 * The answers, the throttle's naming the spending limit when it is on: a paused stage's throttle
 * is 0 (config/spend.cjs), so its refusals reach the client as this 429. No `$`: this is a mapping
 * template.
 */
function answers(env) {
  const limit = parseSpendLimitUsd(env.SPEND_LIMIT_USD);
  if (limit === undefined) return GATEWAY_RESPONSES;
  const detail =
    "Too many requests: slow down and retry, or the stage has reached its monthly spending " +
    `limit of USD ${limit} (SPEND_LIMIT_USD), which lifts at the month's turn (UTC)`;
  return {
    ...GATEWAY_RESPONSES,
    THROTTLED: { ...GATEWAY_RESPONSES.THROTTLED, body: fixed(detail) },
  };
}

/** The template's AWS::ApiGateway::GatewayResponse resources, one per type. */
function gatewayResponses(restApiId, env = process.env) {
  const allowOrigin = allowOriginParameter(readOrigins(env));
  const resources = {};
  for (const [type, { status, body, headers = {} }] of Object.entries(answers(env))) {
    const parameters = {
      "gatewayresponse.header.X-Content-Type-Options": "'nosniff'",
      "gatewayresponse.header.Cache-Control": "'no-store'",
    };
    for (const [name, value] of Object.entries(headers)) {
      parameters[`gatewayresponse.header.${name}`] = `'${value}'`;
    }
    if (allowOrigin) {
      parameters["gatewayresponse.header.Access-Control-Allow-Origin"] = allowOrigin;
      parameters["gatewayresponse.header.Vary"] = "'Origin'";
      // A browser shows a page only the simple answer headers unless told otherwise: without
      // this, the client in a browser could not read a 429's Retry-After (nor a 401's
      // WWW-Authenticate), and would pace its retry by its own backoff instead.
      const own = Object.keys(headers).join(", ");
      if (own) parameters["gatewayresponse.header.Access-Control-Expose-Headers"] = `'${own}'`;
    }
    const id = `GatewayResponse${type
      .toLowerCase()
      .replace(/(^|_)(\w)/g, (_, __, c) => c.toUpperCase())
      .replace(/\dxx$/i, (m) => m.toUpperCase())}`;
    resources[id] = {
      Type: "AWS::ApiGateway::GatewayResponse",
      Properties: {
        RestApiId: restApiId,
        ResponseType: type,
        ...(status ? { StatusCode: String(status) } : {}),
        ResponseParameters: parameters,
        ResponseTemplates: { "application/json": body },
      },
    };
  }
  return resources;
}

module.exports = { GATEWAY_RESPONSES, gatewayResponses, allowOriginParameter };
