// `npm start` with a spending limit of 2 cents: plain lists of a blog of about a megabyte reach
// it in seconds; then every route refuses, nothing is written, the pause outlives a restart, and
// `npm run resume` brings the stage back.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pMap from "p-map";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import prices from "../../config/prices.json" with { type: "json" };
import { type NpmStart, startNpmStart } from "../helpers/npm-start.js";
import { runScript } from "../helpers/run-script.js";

const LIMIT = "0.02";
const POSTS = 100;
const USD_PER_BYTE = prices.prices.dataTransferOut.usd / 2 ** 30;

let dataDir = "";
let api: NpmStart | undefined;

const send = (method: string, path = "", body?: unknown) =>
  fetch(`${api?.base}${path}`, {
    method,
    // Plain lists: the limit counts the bytes as sent, and gzip would send a fifth of them.
    headers: { "content-type": "application/json", "accept-encoding": "identity" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "start-spend-"));
  api = await startNpmStart(dataDir, { SPEND_LIMIT_USD: LIMIT });
  expect(api.output()).toContain("Events:   none sent"); // WEBHOOK_URL unset
  const content = "x".repeat(10_000);
  const create = async (i: number) =>
    (await send("POST", "", { title: `post ${i}`, content })).status;
  const ids = Array.from({ length: POSTS }, (_, i) => i);
  const statuses = await pMap(ids, create, { concurrency: 4 });
  expect(statuses).toEqual(Array(POSTS).fill(201));
}, 300_000);
afterAll(async () => {
  await api?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe(`npm start with SPEND_LIMIT_USD=${LIMIT}`, () => {
  it("pauses after plain lists worth at least 40% of the limit in transfer, and every route refuses", async () => {
    let sentUsd = 0;
    let paused: Response | undefined;
    for (let round = 0; round < 200 && !paused; round += 1) {
      const answers = await Promise.all([send("GET"), send("GET"), send("GET"), send("GET")]);
      for (const answer of answers) {
        const body = await answer.arrayBuffer();
        if (answer.status === 200) sentUsd += body.byteLength * USD_PER_BYTE;
        else paused ??= new Response(body, answer);
      }
    }
    expect(sentUsd).toBeGreaterThan(Number(LIMIT) * 0.4);
    // Within the overshoot: the lists' bytes alone are about 90% of what the stage counts.
    expect(sentUsd).toBeLessThan(Number(LIMIT) * 1.1);
    expect(paused?.status).toBe(503);
    const { detail } = (await paused?.json()) as { detail: string };
    expect(detail).toContain(`$${LIMIT}`);
    expect(Number(paused?.headers.get("retry-after"))).toBeGreaterThan(0);

    // Each other function learns of the pause within one window (docs/operating.md): until then
    // it answers these as if unpaused, and none of them writes (no such post, no content).
    const unpaused: Record<string, number> = { GET: 200, PUT: 404, DELETE: 204, POST: 400 };
    for (const [method, path, body] of [
      ["GET", "/1"],
      ["PUT", "/999999", { title: "changed" }],
      ["DELETE", "/999999"],
      ["POST", "", { title: "no content" }],
    ] as const) {
      let answer = await send(method, path, body);
      for (let tries = 0; answer.status !== 503 && tries < 40; tries += 1) {
        expect(answer.status).toBe(unpaused[method]);
        await new Promise((resolve) => setTimeout(resolve, 500));
        answer = await send(method, path, body);
      }
      expect(answer.status).toBe(503);
      expect(((await answer.json()) as { detail: string }).detail).toContain(`$${LIMIT}`);
    }
    // The create function knows now: a create sent while paused is refused, and stores nothing.
    expect((await send("POST", "", { title: "while paused", content: "c" })).status).toBe(503);
    expect(api?.output()).toMatch(/stage paused/);
  }, 300_000);

  it("stays paused after a restart, and npm run resume brings it back with nothing written", async () => {
    await api?.stop();
    api = await startNpmStart(dataDir, { SPEND_LIMIT_USD: LIMIT });
    // Paused from its first answers: at once, or within a window if its init read was slow.
    let first = await send("GET");
    for (let tries = 0; first.status !== 503 && tries < 30; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      first = await send("GET");
    }
    expect(first.status).toBe(503);

    const env = { ...process.env, DYNAMODB_PORT: api.env.DYNAMODB_PORT };
    const resumed = await runScript("scripts/resume.mjs", [], env);
    expect(resumed.code).toBe(0);
    // The month's spend (the limit, and at most a tenth over) plus one more limit.
    expect(resumed.stdout).toMatch(
      /the stage now pauses at \$0\.04\d\d, one more limit of \$0\.0200/,
    );

    const deadline = Date.now() + 30_000;
    let answer = await send("GET");
    while (answer.status === 503 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      answer = await send("GET");
    }
    expect(answer.status).toBe(200);
    const posts = (await answer.json()) as { title: string }[];
    expect(posts).toHaveLength(POSTS);
    expect(posts.map((post) => post.title)).not.toContain("while paused");
  }, 300_000);
});
