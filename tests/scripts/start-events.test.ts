// `npm start` with WEBHOOK_URL and WEBHOOK_SECRET, as a developer runs it: over a table made
// before events, as npm start makes it without them (its stream turned on), delivering signed
// events to a subscriber on loopback, and after a restart neither replaying what was delivered
// nor missing what is new.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../client/webhooks.mjs";
import { ensureTable, localClient, startDynamoDbLocal } from "../../scripts/lib/dynamodb-local.mjs";
import { connectStorage, localConfig } from "../helpers/db.js";
import { type NpmStart, startNpmStart } from "../helpers/npm-start.js";
import { type Subscriber, startSubscriber } from "../helpers/webhook-subscriber.js";

/** The posts table npm start is given, and the one made before events. */
const POSTS_TABLE = "start-events-posts";
const secret = `whsec_${Buffer.alloc(32, 5).toString("base64")}`;

let subscriber: Subscriber;
let dataDir = "";
let running: NpmStart | undefined;

const startApi = async (env: Record<string, string>) => {
  running = await startNpmStart(dataDir, env);
};
const stopApi = async () => {
  await running?.stop();
  running = undefined;
};

/** A write, sent again after a 5xx (a loaded machine) with the same Idempotency-Key. */
async function call(method: string, path: string, body?: unknown) {
  const headers = { "content-type": "application/json", "idempotency-key": `k-${Math.random()}` };
  for (let tries = 1; ; tries += 1) {
    const response = await fetch(`${running?.base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status < 500 || tries === 3) return (await response.json()) as { id: number };
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "start-events-"));
  subscriber = await startSubscriber();
});
afterAll(async () => {
  await stopApi();
  await subscriber?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

// The events are this test's subject, not the spending limit (tests/scripts/start-spend.test.ts).
const withWebhook = () => ({
  POSTS_TABLE,
  WEBHOOK_URL: subscriber.url,
  WEBHOOK_SECRET: secret,
  SPEND_LIMIT_USD: "off",
});
const seen = () => subscriber.deliveries.map((d) => `${d.event.type} #${d.event.data.id}`);

/** A post in the data folder's table, made by the function npm start makes it with (no stream). */
async function postBeforeEvents() {
  const db = await startDynamoDbLocal({ dbPath: dataDir });
  const admin = localClient(db.endpoint);
  const { client, repository } = connectStorage(localConfig(db.endpoint, POSTS_TABLE));
  try {
    await ensureTable(admin, POSTS_TABLE);
    return await repository.create({ title: "before events", content: "c" });
  } finally {
    client.destroy();
    admin.destroy();
    await db.stop();
  }
}

describe("npm start with WEBHOOK_URL", () => {
  it("turns the stream on for a table made before events, and delivers only what changes after", async () => {
    const before = await postBeforeEvents();
    await startApi(withWebhook());
    const after = await call("POST", "", { title: "after", content: "c" });
    const updated = await call("PUT", `/${before.id}`, { title: "edited" });
    // Long enough for a retry 5 s after a first try refused; npm start's lines say why if not.
    await subscriber
      .waitFor((all) => all.length >= 2, 60_000)
      .catch((error: Error) => {
        throw new Error(`${error.message}\nnpm start said:\n${running?.output().slice(-3_000)}`);
      });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(seen().sort()).toEqual(
      [`post.created #${after.id}`, `post.updated #${before.id}`].sort(),
    );
    for (const delivery of subscriber.deliveries) {
      const event = await verifyWebhook(secret, delivery.headers, delivery.body);
      expect(event.data).toEqual(event.data.id === after.id ? after : updated);
    }
  }, 400_000);

  it("after a restart, delivers what is new and nothing it delivered before", async () => {
    await stopApi();
    await startApi(withWebhook());
    const count = subscriber.deliveries.length;
    // Post 1, made before events were on.
    expect((await fetch(`${running?.base}/1`, { method: "DELETE" })).status).toBe(204);
    await subscriber.waitFor((all) => all.length >= count + 1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(seen().slice(count)).toEqual(["post.deleted #1"]);
  }, 300_000);
});
