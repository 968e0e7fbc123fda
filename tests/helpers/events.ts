// Test helper: API Gateway HTTP API (payload 2.0) events, as the gateway would build them.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { ApiHandler } from "../../lib/http.js";

export interface EventOptions {
  method: "GET" | "POST" | "PUT" | "DELETE";
  postId?: string;
  /** A string is sent as is; anything else is JSON-encoded. */
  body?: unknown;
  isBase64Encoded?: boolean;
  headers?: Record<string, string>;
}

/** Builds an HTTP API event for `/api/post` or `/api/post/{post_pk}`. */
export function apiEvent({
  method,
  postId,
  body,
  isBase64Encoded = false,
  headers = {},
}: EventOptions) {
  const routePath = postId === undefined ? "/api/post" : "/api/post/{post_pk}";
  const rawPath = postId === undefined ? "/api/post" : `/api/post/${postId}`;
  const event: APIGatewayProxyEventV2 = {
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
  if (postId !== undefined) event.pathParameters = { post_pk: postId };
  if (body !== undefined) event.body = typeof body === "string" ? body : JSON.stringify(body);
  return event;
}

export interface Invocation {
  status: number;
  headers: Record<string, unknown>;
  body: unknown;
}

/** Calls a handler with an event and parses its JSON body. */
export async function invoke(handler: ApiHandler, options: EventOptions): Promise<Invocation> {
  const result = (await handler(apiEvent(options))) as APIGatewayProxyStructuredResultV2;
  return {
    status: result.statusCode ?? 0,
    headers: result.headers ?? {},
    body: typeof result.body === "string" ? JSON.parse(result.body) : undefined,
  };
}
