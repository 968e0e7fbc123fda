// Fuzz harness: sends one generated request to a handler and checks a well-formed JSON answer,
// the status the oracle (model.ts) expects, and storage changed exactly as the answer says.
import { isDeepStrictEqual } from "node:util";
import { DeleteCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { expect } from "vitest";
import type { ApiHandler } from "../../lib/http/handler.js";
import { type PostsTable, freshTable } from "../helpers/db.js";
import { apiEvent } from "../helpers/events.js";
import { handlersOver } from "../helpers/handlers.js";
import { POST_KEYS } from "../helpers/post-shape.js";
import type { HostileRequest, Kind } from "./arbitraries.js";
import { KNOWN_IDS } from "./corpora.js";
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
const CLOCK_SLACK_MS = 1_000;

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
  readonly tally = new Map<string, number>();
  /** The first answer to each Idempotency-Key, which later requests with it must replay. */
  private readonly keys = new Map<string, KeyOutcome>();
  private counterHigh = 0;

  private constructor(
    readonly table: PostsTable,
    private readonly api: Record<Kind, ApiHandler>,
    private readonly baseline: Map<number, Item>,
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

  summary(seed: number, runs: number): string {
    const counts = [...this.tally].sort(([a], [b]) => a.localeCompare(b));
    const total = counts.reduce((sum, [, n]) => sum + n, 0);
    const tally = counts.map(([key, n]) => `${key}×${n}`).join(", ");
    return `fuzz: ${total} requests (seed ${seed}, FUZZ_RUNS ${runs}): ${tally}`;
  }

  /** One request, checked end to end; the table is left as the call left it. */
  async checkOne(kind: Kind, request: HostileRequest): Promise<Observation> {
    const expected = expectedOutcome(kind, request, postsOf(this.snapshot), this.keys);
    const { postId, body, isBase64Encoded, headers } = request;
    const event = apiEvent({ method: METHODS[kind], postId, body, isBase64Encoded, headers });
    if (request.dropContentType) {
      delete event.headers["content-type"];
      delete event.multiValueHeaders["content-type"];
    }
    if (request.query) {
      event.queryStringParameters = Object.fromEntries(new URLSearchParams(request.query));
    }
    const before = this.snapshot;
    const startedAt = Date.now();
    const result = await this.api[kind](event).catch(async (error: unknown) => {
      this.snapshot = await this.table.items();
      throw new Error(`the ${kind} handler threw instead of answering`, { cause: error });
    });
    const endedAt = Date.now();
    this.snapshot = await this.table.items();
    // A 204 carries its detail in the result, but no body reaches a client, so no content type.
    expect(result.headers?.["content-type"]).toBe(
      result.statusCode === 204 ? undefined : "application/json",
    );
    expect(result.body, "every response has a body").toBeTypeOf("string");
    expect(
      () => JSON.parse(result.body),
      `a JSON body: ${result.body.slice(0, 200)}`,
    ).not.toThrow();
    const [status, after] = [result.statusCode, this.snapshot];
    const obs = {
      status,
      body: JSON.parse(result.body) as unknown,
      before,
      after,
      startedAt,
      endedAt,
    };
    const key = `${kind} ${obs.status}`;
    this.tally.set(key, (this.tally.get(key) ?? 0) + 1);
    expect(STATUSES, `status ${obs.status} with ${JSON.stringify(obs.body)}`).toContain(obs.status);
    // A refusal or a delete carries one `detail`; its text is the unit tests' to check.
    if (obs.status >= 400 || obs.status === 204) {
      expect(obs.body).toEqual({ detail: expect.any(String) });
    }
    expect(expected.statuses, `status for ${JSON.stringify(obs.body)}`).toContain(obs.status);
    if (expected.replay) {
      expect(obs.body, "a retry with the same key and body gets the first answer").toEqual(
        expected.replay.body,
      );
      // A replay advances only the change marker, as every acknowledged create does.
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
    const { documentClient: db, tableName } = this.table;
    const writes = [
      ...[...current.keys()]
        .filter((id) => !this.baseline.has(id))
        .map((id) => db.send(new DeleteCommand({ TableName: tableName, Key: { id } }))),
      ...[...this.baseline]
        .filter(([id, item]) => !isDeepStrictEqual(current.get(id), item))
        .map(([, item]) => db.send(new PutCommand({ TableName: tableName, Item: item }))),
    ];
    if (writes.length > 0) {
      await Promise.all(writes);
      this.snapshot = await this.table.items();
    }
  }
}

function expectStorage(kind: Kind, request: HostileRequest, obs: Observation, high: number) {
  const [before, after] = [postsOf(obs.before), postsOf(obs.after)];
  const [counterBefore, counterAfter] = [counterOf(obs.before), counterOf(obs.after)];
  /** Every post but this one is as it was, and no other post appeared. */
  const unchangedExcept = (id: number) => {
    for (const [other, item] of before) if (other !== id) expect(after.get(other)).toEqual(item);
    for (const other of after.keys()) if (other !== id) expect(before.has(other)).toBe(true);
  };
  /** A timestamp the service set lies within the call. */
  const withinCall = (stored: unknown) => {
    const instant = instantOf(stored);
    expect(instant).not.toBeNull();
    expect(instant!).toBeGreaterThanOrEqual(obs.startedAt - CLOCK_SLACK_MS);
    expect(instant!).toBeLessThanOrEqual(obs.endedAt + CLOCK_SLACK_MS);
  };
  expect(counterAfter, "the counter never goes back").toBeGreaterThanOrEqual(high);
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
  if (kind !== "create" || obs.status !== 201) {
    expect(counterAfter, `${kind} ${obs.status} spends no counter value`).toBe(counterBefore);
  }
  const pathId = Number(request.postId);
  if (obs.status === 200 && kind === "list") {
    expect(obs.body).toEqual([...before.values()].map(shown));
  }
  if (obs.status === 200 && kind === "get") expect(obs.body).toEqual(shown(before.get(pathId)!));
  if (obs.status === 204 && kind === "delete") {
    expect(after.has(pathId), `post #${pathId} is gone after its delete`).toBe(false);
    unchangedExcept(pathId);
  }
  if (obs.status === 200 && kind === "update") {
    // Only its post, only the fields sent, and a fresh `updated_at`.
    const payload = judgeBody("update", request).payload!;
    const previous = before.get(pathId)!;
    const stored = after.get(pathId)!;
    expect(previous, "only an existing post is updated").toBeDefined();
    unchangedExcept(pathId);
    expect(obs.body, "the 200 body is what was stored").toEqual(shown(stored));
    expect(stored.created_at, "update keeps created_at").toEqual(previous.created_at);
    for (const field of ["title", "content"]) {
      expect(stored[field]).toBe(Object.hasOwn(payload, field) ? payload[field] : previous[field]);
    }
    withinCall(stored.updated_at);
  }
  if (obs.status === 201 && kind === "create") {
    // Exactly the post its body shows, with the payload's fields and timestamps.
    const payload = judgeBody("create", request).payload!;
    const added = [...after.keys()].filter((id) => !before.has(id));
    expect(added, "a 201 adds exactly one post").toHaveLength(1);
    const id = added[0]!;
    unchangedExcept(id);
    const stored = after.get(id)!;
    expect(obs.body, "the 201 body is what was stored").toEqual(shown(stored));
    expect([stored.title, stored.content]).toEqual([payload.title, payload.content]);
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
  return counterAfter;
}
