// Integration: the SDK's own budget and the answer's deadline, against endpoints on 127.0.0.1
// that take requests and never answer. A stalled call fails in the SDK before the deadline; a
// call the deadline cuts off is aborted, so nothing lands after the client got its 500.
import { type IncomingMessage, type ServerResponse, createServer, request } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { APIGatewayProxyResult } from "aws-lambda";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ATTEMPT_TIMEOUT_MS, DYNAMODB_MAX_ATTEMPTS } from "../../lib/storage/client.js";
import type { ApiHandler } from "../../lib/http/handler.js";
import { type PostsTable, connectStorage, freshTable, localConfig } from "../helpers/db.js";
import { apiEvent } from "../helpers/events.js";
import { handlersOver } from "../helpers/handlers.js";

/** What the endpoint does with a request: hold it, apply it and hold the answer, or pass it on. */
type Treatment = "hold" | "apply" | "pass";

/** The functions' timeout, less the margin the wrapper keeps to answer. */
const FUNCTION_DEADLINE_MS = 9_000;
/** Long enough for the SDK to time an attempt out, back off and try again, had it not been aborted. */
const RETRY_WINDOW_MS = ATTEMPT_TIMEOUT_MS + 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let table: PostsTable;
let treat: (operation: string) => Treatment = () => "hold";
/** The operations the endpoint received, and the connections they came on. */
let received: string[] = [];
let connections: Socket[] = [];
const held = new Set<ServerResponse>();
const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
  const operation = String(incoming.headers["x-amz-target"]).split(".")[1] ?? "";
  received.push(operation);
  held.add(outgoing);
  connections.push(incoming.socket);
  const treatment = treat(operation);
  if (treatment === "hold") return void incoming.resume();
  const { hostname: host, port } = new URL(table.endpoint);
  const { method, url: path, headers } = incoming;
  const forwarded = request({ host, port, method, path, headers }, (answer) => {
    if (treatment === "apply") return void answer.resume(); // applied, never answered
    held.delete(outgoing);
    answer.pipe(outgoing.writeHead(answer.statusCode ?? 500, answer.headers));
  });
  incoming.pipe(forwarded);
});
let url = "";
const clients: { destroy(): void }[] = [];

beforeAll(async () => {
  table = await freshTable("deadline");
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  for (const client of clients.splice(0)) client.destroy();
  for (const outgoing of held) outgoing.destroy();
  held.clear();
  received = [];
  connections = [];
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await table.drop();
});

/** The handlers over the production client, pointed at the endpoint, over the test's tables. */
function throughEndpoint() {
  const { client, repository } = connectStorage(
    localConfig(url, table.tableName, table.idempotencyTableName),
  );
  clients.push(client);
  return handlersOver(repository);
}

/** Calls a handler as Lambda would with `remainingMs` left; the answer and how long it took. */
async function call(handler: ApiHandler, event: ReturnType<typeof apiEvent>, remainingMs: number) {
  const started = Date.now();
  const context = { getRemainingTimeInMillis: () => remainingMs };
  const result = (await handler(event, context)) as APIGatewayProxyResult;
  return { status: result.statusCode, body: JSON.parse(result.body), ms: Date.now() - started };
}

describe("a DynamoDB that takes requests and never answers", () => {
  it("fails each attempt in the SDK and gives up after its attempts, before the deadline", async () => {
    treat = () => "hold";
    const answer = await call(
      throughEndpoint().get,
      apiEvent({ method: "GET", postId: 1 }),
      10_000,
    );
    expect(answer.status).toBe(500);
    // The SDK's own per-attempt timeout, not the answer's deadline.
    expect(answer.body.detail).toMatch(
      new RegExp(`TimeoutError: .*exceeded the configured ${ATTEMPT_TIMEOUT_MS} ms requestTimeout`),
    );
    expect(received).toEqual(Array(DYNAMODB_MAX_ATTEMPTS).fill("GetItem"));
    expect(answer.ms).toBeGreaterThanOrEqual(DYNAMODB_MAX_ATTEMPTS * ATTEMPT_TIMEOUT_MS - 100);
    expect(answer.ms).toBeLessThan(FUNCTION_DEADLINE_MS);
  });
});

describe("a DynamoDB that applies writes and never answers", () => {
  it("gets its answer at the deadline, the attempt aborted: no retry, nothing lands after", async () => {
    treat = () => "apply";
    const before = await table.posts();
    const event = apiEvent({ method: "POST", body: { title: "late", content: "c" } });
    const answer = await call(throughEndpoint().create, event, 2_000);
    expect(answer.status).toBe(500);
    expect(answer.body.detail).toContain("TimeoutError: storage did not answer within 1000 ms");
    expect(answer.ms).toBeLessThan(2_000);
    const atAnswer = await table.items();
    // The counter ADD reached DynamoDB before the deadline; no post did.
    expect(await table.posts()).toEqual(before);
    await sleep(RETRY_WINDOW_MS);
    expect(await table.items()).toEqual(atAnswer);
    expect(received).toEqual(["UpdateItem"]);
    // The client hung up: the call is gone, not left to time out.
    expect(connections.map((socket) => socket.destroyed)).toEqual([true]);
  });

  it("settles with a retry under the same Idempotency-Key: exactly one post", async () => {
    treat = (operation) => (operation === "TransactWriteItems" ? "apply" : "pass");
    const body = { title: "timed out once", content: "c" };
    const headers = { "idempotency-key": `deadline-${Date.now()}` };
    const event = () => apiEvent({ method: "POST", body, headers });
    const first = await call(throughEndpoint().create, event(), 2_000);
    expect(first.status).toBe(500);
    expect(first.body.detail).toContain("TimeoutError: storage did not answer within 1000 ms");
    const retry = await call(handlersOver(table.repository).create, event(), 10_000);
    expect(retry.status).toBe(201);
    const stored = (await table.items()).filter((item) => item.title === body.title);
    expect(stored).toHaveLength(1);
    expect(retry.body).toMatchObject({ id: stored[0]?.id, ...body });
  });
});
