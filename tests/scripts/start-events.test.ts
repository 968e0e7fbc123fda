// `npm start` with WEBHOOK_URL and WEBHOOK_SECRET, as a developer runs it: over a table made
// before events (its stream turned on), delivering signed events to a subscriber on loopback, and
// after a restart neither replaying what was delivered nor missing what is new.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holdDistLock } from "../helpers/package.js";
import { verifyWebhook } from "../../client/webhooks.mjs";
import { freePort } from "../../scripts/lib/ports.mjs";
import { type Subscriber, startSubscriber } from "../helpers/webhook-subscriber.js";

const startScript = fileURLToPath(new URL("../../scripts/start.mjs", import.meta.url));
const secret = `whsec_${Buffer.alloc(32, 5).toString("base64")}`;
const STARTUP_MS = 150_000;

let subscriber: Subscriber;
let dataDir = "";
let base = "";
let running: { child: ChildProcess; output: () => string } | undefined;

/**
 * Starts `npm start` on the test's data folder; resolves once its banner is printed. It builds
 * into dist/, which a packaging reads, so it holds the lock on dist/ until then, and no longer.
 */
async function startApi(env: Record<string, string>) {
  const release = await holdDistLock();
  try {
    await spawnApi(env);
  } finally {
    await release();
  }
}

async function spawnApi(env: Record<string, string>) {
  const port = await freePort();
  base = `http://127.0.0.1:${port}/api/post`;
  const child = spawn(process.execPath, [startScript], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      PORT: String(port),
      LAMBDA_PORT: String(await freePort()),
      DYNAMODB_PORT: String(await freePort()),
      DYNAMODB_DATA_DIR: dataDir,
      TIME_ZONE: "UTC",
      WEBHOOK_URL: "",
      WEBHOOK_SECRET: "",
      ...env,
    },
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  running = { child, output: () => output };
  const deadline = Date.now() + STARTUP_MS;
  // The banner's last line (a function named publishEvents is listed before it).
  while (!/^Events: {3}/m.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Stops `npm start` and everything it started (its own process group). */
async function stopApi() {
  const child = running?.child;
  running = undefined;
  if (!child?.pid || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid, "SIGTERM");
  const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as { id: number };
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

const withWebhook = () => ({ WEBHOOK_URL: subscriber.url, WEBHOOK_SECRET: secret });
const seen = () => subscriber.deliveries.map((d) => `${d.event.type} #${d.event.data.id}`);

describe("npm start with WEBHOOK_URL", () => {
  it("turns the stream on for a table made before events, and delivers only what changes after", async () => {
    await startApi({});
    expect(running?.output()).toContain("Events:   none sent");
    const before = await call("POST", "", { title: "before events", content: "c" });
    await stopApi();

    await startApi(withWebhook());
    const after = await call("POST", "", { title: "after", content: "c" });
    const updated = await call("PUT", `/${before.id}`, { title: "edited" });
    await subscriber.waitFor((all) => all.length >= 2);
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
    // Post 1 is the one made before events were on.
    expect((await fetch(`${base}/1`, { method: "DELETE" })).status).toBe(204);
    await subscriber.waitFor((all) => all.length >= count + 1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(seen().slice(count)).toEqual(["post.deleted #1"]);
  }, 300_000);
});
