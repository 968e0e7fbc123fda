// Test helper: calls a handler with an API Gateway event and reads its JSON answer.
import type { APIGatewayProxyResult } from "aws-lambda";
import type { ApiHandler } from "../../lib/http/handler.js";
import { apiEvent, type EventOptions } from "./api-event.mjs";

export { apiEvent, type EventOptions };

export type Invocation = { status: number; headers: Record<string, unknown>; body: unknown };

/** Calls a handler with an event and parses its JSON body. */
export async function invoke(handler: ApiHandler, options: EventOptions): Promise<Invocation> {
  const result = (await handler(apiEvent(options))) as APIGatewayProxyResult;
  return {
    status: result.statusCode ?? 0,
    headers: result.headers ?? {},
    body: result.body ? JSON.parse(result.body) : undefined,
  };
}
