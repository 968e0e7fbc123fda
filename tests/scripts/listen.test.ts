// `npm run listen`: a local subscriber that prints each verified event and refuses the rest,
// driven with deliveries signed as the service signs them.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookHeaders } from "../../lib/events/signature.js";
import { freePort } from "../../scripts/lib/ports.mjs";
import { runScript } from "../helpers/run-script.js";

const script = fileURLToPath(new URL("../../scripts/listen.mjs", import.meta.url));
const secret = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
const body = JSON.stringify({
  type: "post.deleted",
  timestamp: "2026-11-25T18:59:00.000Z",
  version: 8,
  data: { id: 3 },
});

let child: ChildProcess;
let output = "";
let url = "";

beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}/`;
  child = spawn(process.execPath, [script, "--port", String(port), "--secret", secret]);
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await printed("Listening");
});
afterAll(() => {
  child?.kill("SIGINT");
});

/** Waits until the listener has printed `text`: it prints after it answers. */
async function printed(text: string) {
  const deadline = Date.now() + 10_000;
  while (!output.includes(text) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(output).toContain(text);
}

/** Delivers `sent`, signed as the service signs `body` under this message id. */
const deliver = (id: string, sent = body) => {
  const headers = { "content-type": "application/json", ...webhookHeaders([secret], id, body) };
  return fetch(url, { method: "POST", body: sent, headers });
};

describe("npm run listen", () => {
  it("prints a verified event on one line and answers 204", async () => {
    expect((await deliver("msg_post3v8")).status).toBe(204);
    await printed('2026-11-25T18:59:00.000Z post.deleted #3 v8 {"id":3}');
  });

  it("refuses a tampered delivery with 401 and says so", async () => {
    expect((await deliver("msg_post3v9", body.replace("3", "4"))).status).toBe(401);
    await printed("refused msg_post3v9: no signature matches the body");
  });

  // Its --help and an unknown flag: tests/scripts/commands.test.ts, as for every command.
  it("prints a new secret", async () => {
    const { stdout } = await runScript(script, ["--new-secret"], process.env);
    expect(stdout).toMatch(/^whsec_[A-Za-z0-9+/]{43}=\n$/);
  });
});
