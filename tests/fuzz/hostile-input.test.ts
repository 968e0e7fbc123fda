// Fuzz: every handler, fed generated hostile requests, answers well-formed JSON, never 500, and
// changes storage exactly as its answer says. FUZZ_RUNS sets cases per property, FUZZ_SEED the seed.
import { isDeepStrictEqual } from "node:util";
import { DeleteCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiHandler } from "../../lib/http-handler.js";
import { type PostsTable, freshTable } from "../helpers/db.js";
import { apiEvent } from "../helpers/events.js";
import { handlersOver } from "../helpers/handlers.js";
import { POST_KEYS, SHOWN_TIMESTAMP } from "../helpers/post-shape.js";
import * as arb from "./arbitraries.js";
import type { HostileRequest, Kind } from "./arbitraries.js";
import {
  type Item,
  MAX_ID,
  clientInstant,
  expectedOutcome,
  instantOf,
  judgeBody,
  shown,
} from "./model.js";

const RUNS = Math.max(1, Math.floor(Number(process.env.FUZZ_RUNS) || 400));
const SEED = Math.floor(Number(process.env.FUZZ_SEED) || 20_260_304);
/** Per property: generous per case, so a long FUZZ_RUNS run is not cut short by vitest. */
const TIMEOUT = 60_000 + RUNS * 300;
const RUNS_FOR = { single: RUNS, list: Math.ceil(RUNS / 4), lifecycle: Math.ceil(RUNS / 4) };

const METHODS = {
  list: "GET",
  get: "GET",
  create: "POST",
  update: "PUT",
  delete: "DELETE",
} as const;
const KINDS: Kind[] = ["list", "get", "create", "update", "delete"];
const STATUSES = [200, 201, 204, 400, 404, 409, 413];
/** Server timestamps must fall within the call; this much clock slack is tolerated. */
const CLOCK_SLACK_MS = 1_000;

let table: PostsTable;
let api: Record<Kind, ApiHandler>;
/** The seeded posts every case starts from. */
let baseline: Map<number, Item>;
/** The table as last read, counter included. */
let snapshot: Item[];
/** The highest counter value seen so far; it may only grow. */
let counterHigh = 0;
const KNOWN_IDS = [1, 2, 3, 5, MAX_ID];

beforeAll(async () => {
  process.env.TZ = "UTC";
  table = await freshTable("fuzz");
  const repo = table.repository;
  api = handlersOver(repo);
  const seeded = [
    await repo.create({ title: "first", content: "hello" }),
    await repo.create({ title: "\u{1f600}".repeat(100), content: "e\u0301\u202e\u0000\u{1f469}" }),
    await repo.create({ title: "", content: "", created_at: null, updated_at: null }),
    await repo.create({ id: 5, title: "client id", content: "five" }),
    await repo.create({
      id: MAX_ID,
      title: "largest id",
      content: "2^53 - 1",
      created_at: "2026-03-04T15:06:07.000Z",
      updated_at: "2026-03-05T00:00:00.000Z",
    }),
  ];
  expect(seeded.map((post) => post.id)).toEqual(KNOWN_IDS);
  snapshot = await table.items();
  baseline = postsOf(snapshot);
});
afterAll(async () => {
  await table?.drop();
  const counts = [...tally].sort(([a], [b]) => a.localeCompare(b));
  const total = counts.reduce((sum, [, n]) => sum + n, 0);
  console.log(
    `fuzz: ${total} requests (seed ${SEED}, FUZZ_RUNS ${RUNS}): ` +
      counts.map(([key, n]) => `${key}×${n}`).join(", "),
  );
});

// ---- reading the table ----

function postsOf(items: Item[]): Map<number, Item> {
  return new Map(
    items.filter((item) => (item.id as number) > 0).map((item) => [item.id as number, item]),
  );
}

function counterOf(items: Item[]): number {
  const counters = items.filter((item) => item.id === 0);
  expect(counters, "the counter item (id 0) must stay in the table").toHaveLength(1);
  expect(Object.keys(counters[0]!).sort(), "the counter item holds only its value").toEqual([
    "id",
    "last_id",
  ]);
  const value = counters[0]!.last_id;
  expect(Number.isSafeInteger(value), "the counter is an integer").toBe(true);
  return value as number;
}

/** Puts the seeded posts back as they were (the counter keeps its value). */
async function restoreBaseline(): Promise<void> {
  const current = postsOf(snapshot);
  const writes: Promise<unknown>[] = [];
  const db = table.documentClient;
  for (const id of current.keys()) {
    if (!baseline.has(id)) {
      writes.push(db.send(new DeleteCommand({ TableName: table.tableName, Key: { id } })));
    }
  }
  for (const [id, item] of baseline) {
    if (!isDeepStrictEqual(current.get(id), item)) {
      writes.push(db.send(new PutCommand({ TableName: table.tableName, Item: item })));
    }
  }
  if (writes.length > 0) {
    await Promise.all(writes);
    snapshot = await table.items();
  }
}

// ---- calling a handler and checking everything about its answer ----

interface Observation {
  status: number;
  body: unknown;
  before: Item[];
  after: Item[];
  startedAt: number;
  endedAt: number;
}

async function exercise(kind: Kind, request: HostileRequest): Promise<Observation> {
  const event = apiEvent({
    method: METHODS[kind],
    postId: request.postId,
    body: request.body,
    isBase64Encoded: request.isBase64Encoded,
    headers: request.headers,
  });
  if (request.dropContentType) delete event.headers["content-type"];
  event.rawQueryString = request.query;
  if (request.query) {
    event.queryStringParameters = Object.fromEntries(new URLSearchParams(request.query));
  }
  const before = snapshot;
  const startedAt = Date.now();
  let result: APIGatewayProxyStructuredResultV2;
  try {
    result = (await api[kind](event)) as APIGatewayProxyStructuredResultV2;
  } catch (error) {
    snapshot = await table.items();
    throw new Error(`the ${kind} handler threw instead of answering`, { cause: error });
  }
  const endedAt = Date.now();
  snapshot = await table.items();
  expect(result.headers?.["content-type"]).toBe("application/json");
  expect(result.body, "every response has a body").toBeTypeOf("string");
  let body: unknown;
  try {
    body = JSON.parse(result.body!);
  } catch {
    throw new Error(`response body is not JSON: ${result.body!.slice(0, 200)}`);
  }
  return { status: result.statusCode ?? 0, body, before, after: snapshot, startedAt, endedAt };
}

function expectPost(value: unknown): asserts value is Item {
  expect(value).toBeTypeOf("object");
  expect(value).not.toBeNull();
  const post = value as Item;
  expect(Object.keys(post).sort()).toEqual(POST_KEYS);
  expect(Number.isSafeInteger(post.id) && (post.id as number) > 0, "id is a positive integer").toBe(
    true,
  );
  expect(post.title).toBeTypeOf("string");
  expect(post.content).toBeTypeOf("string");
  for (const key of ["created_at", "updated_at"]) {
    const stamp = post[key];
    expect(
      stamp === null || (typeof stamp === "string" && SHOWN_TIMESTAMP.test(stamp)),
      `${key} ${JSON.stringify(stamp)} is null or YYYY-DD-MM HH:MM:SS`,
    ).toBe(true);
  }
}

function expectWellFormed(kind: Kind, { status, body }: Observation): void {
  expect(STATUSES, `status ${status} with ${JSON.stringify(body)}`).toContain(status);
  if (status >= 400 || status === 204) {
    expect(body).toBeTypeOf("object");
    expect(Object.keys(body as object)).toEqual(["detail"]);
    expect((body as { detail: unknown }).detail).toBeTypeOf("string");
  } else if (kind === "list") {
    expect(status).toBe(200);
    expect(Array.isArray(body), "list answers an array").toBe(true);
    const ids = (body as unknown[]).map((post) => {
      expectPost(post);
      return post.id as number;
    });
    expect(ids, "listed ascending by id, each once").toEqual(
      [...new Set(ids)].sort((a, b) => a - b),
    );
  } else {
    expectPost(body);
  }
}

/** The table before and after one call, and the checks every kind of write shares. */
function storageChange(obs: Observation) {
  const before = postsOf(obs.before);
  const after = postsOf(obs.after);
  return {
    before,
    after,
    counterBefore: counterOf(obs.before),
    counterAfter: counterOf(obs.after),
    /** Every post but these is as it was, and no other post appeared. */
    unchangedExcept: (ids: number[]) => {
      for (const [id, item] of before) if (!ids.includes(id)) expect(after.get(id)).toEqual(item);
      for (const id of after.keys()) if (!ids.includes(id)) expect(before.has(id)).toBe(true);
    },
    /** A timestamp the service set lies within the call. */
    withinCall: (stored: unknown) => {
      const instant = instantOf(stored);
      expect(instant).not.toBeNull();
      expect(instant!).toBeGreaterThanOrEqual(obs.startedAt - CLOCK_SLACK_MS);
      expect(instant!).toBeLessThanOrEqual(obs.endedAt + CLOCK_SLACK_MS);
    },
  };
}
type StorageChange = ReturnType<typeof storageChange>;

/** A 201 stored exactly the post its body shows, with the payload's fields and timestamps. */
function expectCreated(change: StorageChange, request: HostileRequest, obs: Observation): void {
  const { before, after, counterBefore, counterAfter, unchangedExcept, withinCall } = change;
  const payload = judgeBody("create", request).payload!;
  const added = [...after.keys()].filter((id) => !before.has(id));
  expect(added, "a 201 adds exactly one post").toHaveLength(1);
  const id = added[0]!;
  unchangedExcept([id]);
  const stored = after.get(id)!;
  expect(obs.body, "the 201 body is what was stored").toEqual(shown(stored));
  expect(stored.title).toBe(payload.title);
  expect(stored.content).toBe(payload.content);
  if (Object.hasOwn(payload, "id")) {
    expect(id).toBe(payload.id);
    expect(counterAfter, "a client-chosen id spends no counter value").toBe(counterBefore);
  } else {
    expect(counterAfter, "the counter covers the id it issued").toBeGreaterThanOrEqual(id);
  }
  for (const field of ["created_at", "updated_at"]) {
    if (Object.hasOwn(payload, field)) {
      expect(instantOf(stored[field]), `${field} as sent`).toBe(clientInstant(payload[field]));
    } else {
      withinCall(stored[field]);
    }
  }
  if (!Object.hasOwn(payload, "created_at") && !Object.hasOwn(payload, "updated_at")) {
    expect(stored.updated_at).toBe(stored.created_at);
  }
}

/** A 200 update changed only its post, only the fields sent, and refreshed `updated_at`. */
function expectUpdated(change: StorageChange, request: HostileRequest, obs: Observation): void {
  const { before, after, unchangedExcept, withinCall } = change;
  const payload = judgeBody("update", request).payload!;
  const id = Number(request.postId);
  const previous = before.get(id)!;
  const stored = after.get(id)!;
  expect(previous, "only an existing post is updated").toBeDefined();
  unchangedExcept([id]);
  expect(obs.body, "the 200 body is what was stored").toEqual(shown(stored));
  expect(stored.id).toBe(id);
  expect(stored.created_at, "update keeps created_at").toEqual(previous.created_at);
  expect(stored.title).toBe(Object.hasOwn(payload, "title") ? payload.title : previous.title);
  expect(stored.content).toBe(
    Object.hasOwn(payload, "content") ? payload.content : previous.content,
  );
  withinCall(stored.updated_at);
}

/** Checks the table after a call against what the answer claims happened. */
function expectStorage(kind: Kind, request: HostileRequest, obs: Observation): void {
  const change = storageChange(obs);
  const { before, after, counterBefore, counterAfter, unchangedExcept } = change;
  expect(counterAfter, "the counter never goes back").toBeGreaterThanOrEqual(counterHigh);
  counterHigh = counterAfter;
  for (const item of after.values()) {
    expect(POST_KEYS, `stored keys of #${String(item.id)}`).toEqual(
      expect.arrayContaining(Object.keys(item)),
    );
  }
  if (obs.status >= 400 || kind === "get" || kind === "list") {
    expect(obs.after, "a rejected or read-only request leaves the table unchanged").toEqual(
      obs.before,
    );
  }
  if (kind === "list" && obs.status === 200) {
    expect(obs.body).toEqual([...before.values()].map(shown));
  }
  if (kind === "get" && obs.status === 200) {
    expect(obs.body).toEqual(shown(before.get(Number(request.postId))!));
  }
  if (kind === "delete" && obs.status === 204) {
    const id = Number(request.postId);
    expect(after.has(id), `post #${id} is gone after its delete`).toBe(false);
    unchangedExcept([id]);
    expect(counterAfter).toBe(counterBefore);
  }
  if (kind === "create" && obs.status === 201) {
    expectCreated(change, request, obs);
  } else if (kind === "create" && obs.status !== 201) {
    expect(counterAfter, "a create that stored nothing spends no counter value").toBe(
      counterBefore,
    );
  }
  if (kind === "update" && obs.status === 200) expectUpdated(change, request, obs);
  if (kind === "update" || kind === "delete" || kind === "get" || kind === "list") {
    expect(counterAfter, `${kind} never touches the counter`).toBe(counterBefore);
  }
}

/** Requests sent, by handler and status, printed once at the end. */
const tally = new Map<string, number>();

/** One request, checked end to end; the table is left as the call left it. */
async function checkOne(kind: Kind, request: HostileRequest): Promise<Observation> {
  const obs = await exercise(kind, request);
  const key = `${kind} ${obs.status}`;
  tally.set(key, (tally.get(key) ?? 0) + 1);
  expectWellFormed(kind, obs);
  const expected = expectedOutcome(kind, request, postsOf(obs.before));
  expect(expected.statuses, `status for ${JSON.stringify(obs.body)}`).toContain(obs.status);
  if (expected.detail !== undefined) expect(obs.body).toEqual({ detail: expected.detail });
  expectStorage(kind, request, obs);
  return obs;
}

/** One request, checked, then the table put back to the seeded posts. */
async function check(kind: Kind, request: HostileRequest): Promise<void> {
  try {
    await checkOne(kind, request);
  } finally {
    await restoreBaseline();
  }
}

const options = (numRuns: number) => ({ seed: SEED, numRuns });

// ---- the properties ----

describe(`hostile input (seed ${SEED}, ${RUNS} runs per property)`, () => {
  it.each(["create", "update", "get", "delete"] as const)(
    "%s: any request gets a well-formed answer, the status the rulings give, and honest storage",
    async (kind) => {
      await fc.assert(
        fc.asyncProperty(arb.hostileRequest(kind, KNOWN_IDS), (request) => check(kind, request)),
        options(RUNS_FOR.single),
      );
    },
    TIMEOUT,
  );

  it(
    "list: bodies, headers and query strings change nothing; every post, ascending, no counter",
    async () => {
      await fc.assert(
        fc.asyncProperty(arb.hostileRequest("list", KNOWN_IDS), (request) =>
          check("list", request),
        ),
        options(RUNS_FOR.list),
      );
    },
    TIMEOUT,
  );

  it(
    "any handler given a request shaped for another route still answers within the rules",
    async () => {
      const crossed = fc
        .tuple(fc.constantFrom(...KINDS), fc.constantFrom(...KINDS))
        .chain(([kind, shape]) =>
          arb.hostileRequest(shape, KNOWN_IDS).map((request) => [kind, request] as const),
        );
      await fc.assert(
        fc.asyncProperty(crossed, ([kind, request]) => check(kind, request)),
        options(RUNS_FOR.single),
      );
    },
    TIMEOUT,
  );

  it(
    "the id counter (item 0) cannot be read, listed, created over, updated or deleted",
    async () => {
      await fc.assert(
        fc.asyncProperty(arb.counterAttack, async ([kind, request]) => {
          try {
            const obs = await checkOne(kind, request);
            expect(obs.status).toBe(kind === "list" ? 200 : 400);
            if (kind === "list") expect(JSON.stringify(obs.body)).not.toMatch(/last_id/);
          } finally {
            await restoreBaseline();
          }
        }),
        options(RUNS_FOR.list),
      );
    },
    TIMEOUT,
  );

  it(
    "valid posts live through create, get, update, list and delete exactly as answered",
    async () => {
      const lifecycle = fc.record({
        created: arb.validCreatePayload(KNOWN_IDS),
        changes: arb.validUpdatePayload,
        base64: fc.boolean(),
        frame: arb.requestFrame,
      });
      await fc.assert(
        fc.asyncProperty(lifecycle, async ({ created, changes, base64, frame }) => {
          const send = (kind: Kind, postId?: string, body?: unknown) =>
            checkOne(kind, {
              ...frame,
              postId,
              ...(body === undefined
                ? { body: undefined, isBase64Encoded: false }
                : base64
                  ? {
                      body: Buffer.from(JSON.stringify(body)).toString("base64"),
                      isBase64Encoded: true,
                    }
                  : { body: JSON.stringify(body), isBase64Encoded: false }),
            });
          try {
            const made = await send("create", undefined, created);
            if (made.status === 409) return; // a seeded id: the oracle checked the 409
            expect(made.status).toBe(201);
            const id = String((made.body as Item).id);
            expect((await send("get", id)).body).toEqual(made.body);
            const updated = await send("update", id, changes);
            expect(updated.status).toBe(200);
            expect((await send("get", id)).body).toEqual(updated.body);
            expect((await send("list")).body).toContainEqual(updated.body);
            expect((await send("delete", id)).status).toBe(204);
            expect((await send("get", id)).status).toBe(404);
            expect((await send("delete", id)).status).toBe(204);
            expect((await send("update", id, changes)).status).toBe(404);
          } finally {
            await restoreBaseline();
          }
        }),
        options(RUNS_FOR.lifecycle),
      );
    },
    TIMEOUT,
  );
});
