// The API through serverless-offline, its stream delivered by `npm start`'s event path
// (scripts/lib/local-events.mjs) to a webhook subscriber; the rules are tests/unit/events'.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { WebhookVerificationError, verifyWebhook } from "../../client/webhooks.mjs";
import { startDynamoDbLocal } from "../../scripts/lib/dynamodb-local.mjs";
import { startLocalEvents } from "../../scripts/lib/local-events.mjs";
import { type ContractCheck, loadEventContract } from "../helpers/event-contract.js";
import { type Offline, startOffline } from "../helpers/offline.js";
import { type Delivery, type Subscriber, startSubscriber } from "../helpers/webhook-subscriber.js";

// The events are mapped in this process: its zone must be the API's, as `npm start` makes it.
const TIME_ZONE = "Asia/Kathmandu";
process.env.TZ = TIME_ZONE;

/** Two retries, a second apart: a third failed try is the last, then the message is dead-lettered. */
const RETRY_DELAYS_MS = [1_000, 1_000];
const SCHEDULE = {
  retryDelayMs: (attempt: number) => RETRY_DELAYS_MS[attempt - 1],
  DELIVERY_ATTEMPTS: RETRY_DELAYS_MS.length + 1,
};
const secret = `whsec_${randomBytes(24).toString("base64")}`;
let api: Offline;
let subscriber: Subscriber;
let events: Awaited<ReturnType<typeof startLocalEvents>> | undefined;
let contract: ContractCheck;
let folder: string;
let db: Awaited<ReturnType<typeof startDynamoDbLocal>>;
const logged: string[] = [];

const deadLetterFile = () => join(folder, "dead-letters.jsonl");
const startEvents = async (options: { visibilityTimeoutMs?: number } = {}) => {
  events = await startLocalEvents({
    endpoint: db.endpoint,
    tableName: api.table.tableName,
    positionFile: join(folder, "position.json"),
    deadLetterFile: deadLetterFile(),
    subscriber: { url: subscriber.url, secrets: [secret] },
    log: (line) => logged.push(line),
    schedule: SCHEDULE,
    ...options,
  });
};
/** The dead-letter file's messages, as the queue's redrive wrote them. */
const deadLetters = (): { body: string; attributes: Record<string, string> }[] =>
  existsSync(deadLetterFile())
    ? readFileSync(deadLetterFile(), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];

beforeAll(async () => {
  // Its own DynamoDB Local: on the busy shared one, the stream failed (TrimmedDataAccessException).
  db = await startDynamoDbLocal();
  folder = mkdtempSync(join(tmpdir(), "events-"));
  contract = await loadEventContract();
  subscriber = await startSubscriber();
  api = await startOffline({
    label: "http-events",
    timeZone: TIME_ZONE,
    dynamoEndpoint: db.endpoint,
  });
  await startEvents();
});

afterEach(({ task }) => {
  if (task.result?.state === "fail") console.log(`events log:\n${logged.join("\n")}`);
});

afterAll(async () => {
  await events?.stop();
  await subscriber?.close();
  await api?.stop();
  await db?.stop();
  rmSync(folder, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown, headers = {}) {
  const response = await fetch(`${api.baseUrl}/api/post${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const ofPost = (id: number) => (all: Delivery[]) => all.filter((d) => d.event.data.id === id);
/** The deliveries of a post with distinct webhook-ids, in arrival order. */
const firstDeliveries = (all: Delivery[]) =>
  all.filter(
    (d, i) => all.findIndex((e) => e.headers["webhook-id"] === d.headers["webhook-id"]) === i,
  );

describe("webhook delivery", () => {
  it("sends one signed event per acknowledged write, with the post as answered, and none for refused or no-op writes", async () => {
    const created = await call("POST", "", { title: "plain", content: "c" });
    const keyed = { "idempotency-key": `key-${Date.now()}` };
    const once = await call("POST", "", { title: "keyed", content: "c" }, keyed);
    expect((await call("POST", "", { title: "keyed", content: "c" }, keyed)).status).toBe(201);
    const chosen = await call("POST", "", { id: 9001, title: "chosen", content: "c" });
    expect((await call("POST", "", { id: 9001, title: "again", content: "c" })).status).toBe(409);
    expect((await call("POST", "", { title: "no content" })).status).toBe(400);
    const updated = await call("PUT", `/${created.body.id}`, { title: "plain, edited" });
    expect((await call("PUT", "/8999999", { title: "nobody" })).status).toBe(404);
    expect((await call("PUT", `/${created.body.id}`, { title: 5 })).status).toBe(400);
    for (const path of ["/9001", "/9001", "/8999998"])
      expect((await call("DELETE", path)).status).toBe(204);
    expect([created, once, chosen].map((reply) => reply.status)).toEqual([201, 201, 201]);

    await subscriber.waitFor((all) => firstDeliveries(all).length >= 5);
    // Anything a refused or no-op write would have caused has had time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const received = firstDeliveries(subscriber.deliveries).map((d) => d.event);
    expect(received.map((e) => [e.type, e.data])).toEqual(
      expect.arrayContaining([
        ["post.created", created.body],
        ["post.created", once.body],
        ["post.created", chosen.body],
        ["post.updated", updated.body],
        ["post.deleted", { id: 9001 }],
      ]),
    );
    expect(received).toHaveLength(5);
    const [create, update] = ofPost(created.body.id)(subscriber.deliveries).map((d) => d.event);
    expect([create?.type, update?.type]).toEqual(["post.created", "post.updated"]);
    expect(update?.version).toBe((create?.version ?? 0) + 1);
  });

  it("answers writes without waiting for a delivery, and holds a post's later events until its earlier one is delivered", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<number>((resolve) => (release = () => resolve(204)));
    subscriber.answerWith(() => held);
    const created = await call("POST", "", { title: "held", content: "0" });
    const id = created.body.id as number;
    await subscriber.waitFor((all) => ofPost(id)(all).length === 1);
    // The subscriber has not answered: every write below still answers.
    const writes = [];
    for (const content of ["1", "2"]) writes.push(await call("PUT", `/${id}`, { content }));
    writes.push(await call("DELETE", `/${id}`));
    expect(writes.map((reply) => reply.status)).toEqual([200, 200, 204]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(ofPost(id)(subscriber.deliveries)).toHaveLength(1);
    subscriber.answerWith(() => 204);
    release();
    await subscriber.waitFor((all) => ofPost(id)(all).length === 4);
    const arrived = ofPost(id)(subscriber.deliveries).map((d) => d.event);
    expect(arrived.map((e) => [e.type, e.data.content])).toEqual([
      ["post.created", "0"],
      ["post.updated", "1"],
      ["post.updated", "2"],
      ["post.deleted", undefined],
    ]);
    const versions = arrived.map((e) => e.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(4);
  });

  it("retries a refused delivery after the schedule's pause, dead-letters it after its last try, and its post's later event goes on", async () => {
    await events?.stop();
    await startEvents({ visibilityTimeoutMs: 300 });
    subscriber.answerWith((delivery) => (delivery.event.data.title === "refused" ? 503 : 204));
    const { id } = (await call("POST", "", { title: "refused", content: "c" })).body;
    expect((await call("PUT", `/${id}`, { title: "taken" })).status).toBe(200);
    await subscriber.waitFor((all) => ofPost(id)(all).some((d) => d.event.data.title === "taken"));
    await vi.waitFor(() => expect(deadLetters()).toHaveLength(1), { timeout: 5_000 });
    subscriber.answerWith(() => 204);
    // Every try of the create, then the update: held back until the create was dead-lettered.
    const tries = ofPost(id)(subscriber.deliveries);
    const taken = tries.pop();
    expect(tries.map((d) => d.event.type)).toEqual(
      Array(SCHEDULE.DELIVERY_ATTEMPTS).fill("post.created"),
    );
    expect(taken?.event.type).toBe("post.updated");
    expect(new Set(tries.map((d) => d.headers["webhook-id"])).size).toBe(1);
    const [first, retry] = tries as [Delivery, Delivery];
    expect(retry.body).toBe(first.body);
    expect(retry.at - first.at).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[0] as number);
    expect(retry.at - first.at).toBeLessThan(10_000);
    const [letter] = deadLetters();
    expect(JSON.parse(letter?.body ?? "")).toEqual(tries[0]?.event);
    expect(letter?.attributes.ApproximateReceiveCount).toBe(String(SCHEDULE.DELIVERY_ATTEMPTS));
  });

  it("picks up after a restart where it stopped: an event awaiting a retry sent again, no delivered one replayed, none missed", async () => {
    subscriber.answerWith((delivery) => (delivery.event.data.title === "awaiting" ? 503 : 204));
    const awaiting = (await call("POST", "", { title: "awaiting", content: "c" })).body.id;
    await subscriber.waitFor((all) => ofPost(awaiting)(all).length === 1);
    await events?.stop();
    subscriber.answerWith(() => 204);
    const before = firstDeliveries(subscriber.deliveries).length;
    const created = (await call("POST", "", { title: "while stopped", content: "c" })).body.id;
    await startEvents();
    await subscriber.waitFor(
      (all) => ofPost(created)(all).length === 1 && ofPost(awaiting)(all).length === 2,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // The event sent again carries its webhook-id: only the new post's counts as a first delivery.
    expect(firstDeliveries(subscriber.deliveries)).toHaveLength(before + 1);
  });

  it("signs every delivery per Standard Webhooks, the contract holds every event, and a tampered body fails", async () => {
    expect(subscriber.deliveries.length).toBeGreaterThanOrEqual(16);
    for (const delivery of subscriber.deliveries) {
      expect(new Webhook(secret).verify(delivery.body, delivery.headers)).toEqual(delivery.event);
      expect(await verifyWebhook(secret, delivery.headers, delivery.body)).toEqual(delivery.event);
      expect(contract(delivery.event, delivery.headers), delivery.body).toEqual([]);
    }
    const delivery = subscriber.deliveries[0] as Delivery;
    const tampered = delivery.body.replace(/"title":"[^"]*"/, '"title":"forged"');
    expect(tampered).not.toBe(delivery.body);
    expect(() => new Webhook(secret).verify(tampered, delivery.headers)).toThrow();
    await expect(verifyWebhook(secret, delivery.headers, tampered)).rejects.toThrow(
      WebhookVerificationError,
    );
    const otherSecret = `whsec_${randomBytes(24).toString("base64")}`;
    await expect(verifyWebhook(otherSecret, delivery.headers, delivery.body)).rejects.toThrow(
      WebhookVerificationError,
    );
  });

  // Last: the subscriber is off delivery for the rest of this run.
  it("takes the subscriber off delivery once it answers 410 Gone: no retry, no later event", async () => {
    subscriber.answerWith(() => 410);
    const gone = (await call("POST", "", { title: "gone", content: "c" })).body.id as number;
    await subscriber.waitFor((all) => ofPost(gone)(all).length === 1);
    const later = (await call("POST", "", { title: "later", content: "c" })).body.id as number;
    // The later event's message is done with (deleted) without being sent.
    await vi.waitFor(
      () => expect(logged).toContainEqual(expect.stringMatching(`#${later} .*: done$`)),
      { timeout: 10_000 },
    );
    await new Promise((resolve) => setTimeout(resolve, 2 * (RETRY_DELAYS_MS[0] as number)));
    expect(ofPost(gone)(subscriber.deliveries)).toHaveLength(1);
    expect(ofPost(later)(subscriber.deliveries)).toEqual([]);
    expect(deadLetters()).toHaveLength(1);
  });
});
