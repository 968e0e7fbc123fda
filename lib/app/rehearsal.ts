// The get's first request rehearsed at init, with no call leaving the process. V8 compiles a
// function when it first runs, so an instance's first get would otherwise pay for compiling its
// whole path: reading the event, the deadline, the storage call through the SDK's middleware
// (signing, the wire format, a post's attributes), the post's JSON and ETag, a gzip, CORS and the
// log line. Init's one read readied the network part; this runs the rest over a client of its own
// whose calls are answered in memory.
import { Readable } from "node:stream";
import type { DynamoDBClientConfig } from "@aws-sdk/client-dynamodb";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { createLogger } from "../http/logger.js";
import { getPost } from "../http/routes.js";
import { createDocumentClient } from "../storage/client.js";
import { DynamoPostRepository } from "../storage/dynamo-repository.js";
import type { Config } from "./config.js";

/** The one post the rehearsal's storage holds, as DynamoDB sends it, long enough to gzip. */
const STORED_POST = {
  id: { N: "1" },
  title: { S: "A post read at init" },
  content: { S: "Content long enough that a client taking gzip gets it gzipped. ".repeat(32) },
  created_at: { S: "2025-01-02T03:04:05.000Z" },
  updated_at: { S: "2025-01-02T03:04:05.000Z" },
  version: { N: "1735787045000000" },
};

/** A GetItem's answer as DynamoDB sends it: the post when the key is its id, else no item. */
function getItemAnswer(requestBody: string | Uint8Array) {
  // Decoded as bytes: the SDK's body warns when it is read with a string's methods.
  const text =
    typeof requestBody === "string" ? requestBody : new TextDecoder().decode(requestBody);
  const { Key } = JSON.parse(text) as { Key?: { id?: { N?: string } } };
  const found = Key?.id?.N === STORED_POST.id.N;
  const consumed = { TableName: "posts", CapacityUnits: found ? 1 : 0.5 };
  const json = JSON.stringify({ ...(found && { Item: STORED_POST }), ConsumedCapacity: consumed });
  const headers = {
    "content-type": "application/x-amz-json-1.0",
    "content-length": String(Buffer.byteLength(json)),
    "x-amzn-requestid": "init",
  };
  // A stream, as a socket's answer is: the SDK reads it the same way.
  return { response: { statusCode: 200, headers, body: Readable.from([Buffer.from(json)]) } };
}

/**
 * Every call answered in memory, signed with fixed keys: no credentials are looked up either. Of
 * a request handler the SDK calls only `handle` here (the rest serves client extensions, and
 * `destroy` is optional), hence the cast.
 */
const answeredInMemory: Partial<DynamoDBClientConfig> = {
  credentials: { accessKeyId: "init", secretAccessKey: "init" },
  requestHandler: {
    handle: async (request: { body: string | Uint8Array }) => getItemAnswer(request.body),
  } as unknown as DynamoDBClientConfig["requestHandler"],
};

/** A GET of `/api/post/{id}` as API Gateway sends it, with `headers`. */
function getEvent(id: number, headers: Record<string, string>): APIGatewayProxyEvent {
  const sent = { accept: "application/json", "user-agent": "init", ...headers };
  const path = `/api/post/${id}`;
  return {
    resource: "/api/post/{post_pk}",
    path,
    httpMethod: "GET",
    headers: sent,
    multiValueHeaders: Object.fromEntries(Object.entries(sent).map(([name, v]) => [name, [v]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: { post_pk: String(id) },
    stageVariables: null,
    requestContext: { path, requestId: "init" } as APIGatewayProxyEvent["requestContext"],
    body: null,
    isBase64Encoded: false,
  };
}

/**
 * The requests rehearsed, one for each path a first get may take: a post sent plain, sent gzipped
 * to a browser app, not modified, and not found. Each runs once: a second pass added 10-20 ms to
 * init for under 1 ms less on the first get.
 */
const REQUESTS = [
  getEvent(1, {}),
  getEvent(1, { "accept-encoding": "gzip, deflate, br", origin: "https://app.example" }),
  getEvent(1, { "if-none-match": "*" }),
  getEvent(2, {}),
];

/**
 * Runs the get route with each rehearsed request over a repository configured as the instance's
 * (region, endpoint, table) whose calls are answered in memory; its log lines are formatted, as a
 * request's are, and dropped. The instance's own handler is built apart, so its first request is
 * still the instance's cold start. Resolves to the statuses answered.
 */
export async function rehearseGet(
  config: Pick<Config, "region" | "endpoint" | "tableName">,
  corsOrigins: readonly string[],
): Promise<number[]> {
  const client = createDocumentClient(config, answeredInMemory);
  const dropped = createLogger("info", undefined, { write: () => true });
  const storage = new DynamoPostRepository(client, config.tableName);
  const handler = getPost(storage, dropped, corsOrigins);
  const context = { getRemainingTimeInMillis: () => 10_000, functionName: "init" };
  const statuses: number[] = [];
  try {
    for (const event of REQUESTS) statuses.push((await handler(event, context)).statusCode);
  } finally {
    client.destroy();
  }
  return statuses;
}
