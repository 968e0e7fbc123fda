// Fuzz harness: sends one generated request to a handler and checks everything about it: a
// well-formed JSON answer, the status the oracle (model.ts) expects, and storage changed exactly
// as the answer says. It keeps the table at the seeded posts between cases.
import { isDeepStrictEqual } from "node:util";
import { DeleteCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { APIGatewayProxyResult } from "aws-lambda";
import { expect } from "vitest";
import type { ApiHandler } from "../../lib/http/handler.js";
import { type PostsTable, freshTable } from "../helpers/db.js";
import { apiEvent } from "../helpers/events.js";
import { handlersOver } from "../helpers/handlers.js";
import { POST_KEYS } from "../helpers/post-shape.js";
import type { HostileRequest, Kind } from "./arbitraries.js";
import {
  type Item,
  type KeyOutcome,
  MAX_ID,
  clientInstant,
  expectedOutcome,
  instantOf,
  judgeBody,
  shown,
} from "./model.js";

const METHODS = {
  list: "GET",
  get: "GET",
  create: "POST",
  update: "PUT",
  delete: "DELETE",
} as const;
const STATUSES = [200, 201, 204, 400, 404, 409, 413, 422];
/** Server timestamps must fall within the call; this much clock slack is tolerated. */
const CLOCK_SLACK_MS = 1_000;
/** The ids of the seeded posts every case starts from. */
export const KNOWN_IDS = [1, 2, 3, 5, MAX_ID];

export interface Observation {
  status: number;
  body: unknown;
  before: Item[];
  after: Item[];
  startedAt: number;
  endedAt: number;
}

/** The posts among the items: positive ids (the counter is 0, the change marker negative). */
export function postsOf(items: Item[]): Map<number, Item> {
  return new Map(
    items.filter((item) => Number(item.id) > 0).map((item) => [item.id as number, item]),
  );
}

/** The id counter's value: one item (id 0) that holds only its integer value. */
export function counterOf(items: Item[]): number {
  const counters = items.filter((item) => item.id === 0);
  expect(counters, "the counter item").toEqual([{ id: 0, last_id: expect.any(Number) }]);
  expect(Number.isSafeInteger(counters[0]!.last_id), "the counter is an integer").toBe(true);
  return counters[0]!.last_id as number;
}

/** One table with the seeded posts, the five handlers over it, and what the run has seen. */
export class FuzzHarness {
  /** Requests sent, by handler and status. */
  readonly tally = new Map<string, number>();
  /** The first answer to each Idempotency-Key, which later requests with it must replay. */
  private readonly keys = new Map<string, KeyOutcome>();
  /** The highest counter value seen so far; it may only grow. */
  private counterHigh = 0;
  private freshKeys = 0;

  private constructor(
    private readonly table: PostsTable,
    private readonly api: Record<Kind, ApiHandler>,
    /** The seeded posts every case starts from. */
    private readonly baseline: Map<number, Item>,
    /** The table as last read, counter included. */
    private snapshot: Item[],
  ) {}

  /** A fresh table seeded with posts at KNOWN_IDS, edge-case text and timestamps included. */
  static async start(): Promise<FuzzHarness> {
    const table = await freshTable("fuzz");
    const repo = table.repository;
    const seeded = [
      await repo.create({ title: "first", content: "hello" }),
      await repo.create({
        title: "\u{1f600}".repeat(100),
        content: "e\u0301\u202e\u0000\u{1f469}",
      }),
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
    const snapshot = await table.items();
    return new FuzzHarness(table, handlersOver(repo), postsOf(snapshot), snapshot);
  }

  async stop(): Promise<void> {
    await this.table.drop();
  }

  /** An Idempotency-Key no request of this run has sent. */
  freshKey(): string {
    return `fresh-${++this.freshKeys}`;
  }

  /** The line the run prints: requests by handler and status. */
  summary(seed: number, runs: number): string {
    const counts = [...this.tally].sort(([a], [b]) => a.localeCompare(b));
    const total = counts.reduce((sum, [, n]) => sum + n, 0);
    return (
      `fuzz: ${total} requests (seed ${seed}, FUZZ_RUNS ${runs}): ` +
      counts.map(([key, n]) => `${key}×${n}`).join(", ")
    );
  }

  /** One request, checked end to end; the table is left as the call left it. */
  async checkOne(kind: Kind, request: HostileRequest): Promise<Observation> {
    const expected = expectedOutcome(kind, request, postsOf(this.snapshot), this.keys);
    const obs = await this.exercise(kind, request);
    const key = `${kind} ${obs.status}`;
    this.tally.set(key, (this.tally.get(key) ?? 0) + 1);
    expectWellFormed(obs);
    expect(expected.statuses, `status for ${JSON.stringify(obs.body)}`).toContain(obs.status);
    if (expected.replay) {
      expect(obs.body, "a retry with the same key and body gets the first answer").toEqual(
        expected.replay.body,
      );
      // Nothing but the change marker, which a replay advances as every acknowledged create does.
      const unmarked = (items: Item[]) => items.filter((item) => Number(item.id) >= 0);
      expect(unmarked(obs.after), "a replayed answer writes nothing").toEqual(unmarked(obs.before));
    } else {
      this.counterHigh = expectStorage(kind, request, obs, this.counterHigh);
    }
    if (expected.remember) {
      const { key: sent, payload } = expected.remember;
      this.keys.set(sent, { payload, status: obs.status, body: obs.body });
    }
    return obs;
  }

  /** One request, checked, then the table put back to the seeded posts. */
  async check(kind: Kind, request: HostileRequest): Promise<void> {
    try {
      await this.checkOne(kind, request);
    } finally {
      await this.restoreBaseline();
    }
  }

  /** Puts the seeded posts back as they were (the counter keeps its value). */
  async restoreBaseline(): Promise<void> {
    const current = postsOf(this.snapshot);
    const writes: Promise<unknown>[] = [];
    const { documentClient: db, tableName } = this.table;
    for (const id of current.keys()) {
      if (!this.baseline.has(id)) {
        writes.push(db.send(new DeleteCommand({ TableName: tableName, Key: { id } })));
      }
    }
    for (const [id, item] of this.baseline) {
      if (!isDeepStrictEqual(current.get(id), item)) {
        writes.push(db.send(new PutCommand({ TableName: tableName, Item: item })));
      }
    }
    if (writes.length > 0) {
      await Promise.all(writes);
      this.snapshot = await this.table.items();
    }
  }

  private async exercise(kind: Kind, request: HostileRequest): Promise<Observation> {
    const event = apiEvent({
      method: METHODS[kind],
      postId: request.postId,
      body: request.body,
      isBase64Encoded: request.isBase64Encoded,
      headers: request.headers,
    });
    if (request.dropContentType) {
      delete event.headers["content-type"];
      delete event.multiValueHeaders["content-type"];
    }
    if (request.query) {
      event.queryStringParameters = Object.fromEntries(new URLSearchParams(request.query));
    }
    const before = this.snapshot;
    const startedAt = Date.now();
    let result: APIGatewayProxyResult;
    try {
      result = (await this.api[kind](event)) as APIGatewayProxyResult;
    } catch (error) {
      this.snapshot = await this.table.items();
      throw new Error(`the ${kind} handler threw instead of answering`, { cause: error });
    }
    const endedAt = Date.now();
    this.snapshot = await this.table.items();
    // A 204 carries its detail in the result, but no body reaches a client, so no content type.
    expect(result.headers?.["content-type"]).toBe(
      result.statusCode === 204 ? undefined : "application/json",
    );
    expect(result.body, "every response has a body").toBeTypeOf("string");
    let body: unknown;
    try {
      body = JSON.parse(result.body!);
    } catch {
      throw new Error(`response body is not JSON: ${result.body!.slice(0, 200)}`);
    }
    const after = this.snapshot;
    return { status: result.statusCode ?? 0, body, before, after, startedAt, endedAt };
  }
}

/** A status the service may give; a refusal, or a delete, carries one `detail` (its text is the
 * unit tests' to check); a post or a list is held to the table by expectStorage. */
function expectWellFormed({ status, body }: Observation): void {
  expect(STATUSES, `status ${status} with ${JSON.stringify(body)}`).toContain(status);
  if (status >= 400 || status === 204) expect(body).toEqual({ detail: expect.any(String) });
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
function expectStorage(
  kind: Kind,
  request: HostileRequest,
  obs: Observation,
  counterHigh: number,
): number {
  const change = storageChange(obs);
  const { before, after, counterBefore, counterAfter, unchangedExcept } = change;
  expect(counterAfter, "the counter never goes back").toBeGreaterThanOrEqual(counterHigh);
  for (const item of after.values()) {
    // A stored post also holds its version, which orders its events (lib/storage/post-version.ts).
    expect([...POST_KEYS, "version"], `stored keys of #${String(item.id)}`).toEqual(
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
  return counterAfter;
}
