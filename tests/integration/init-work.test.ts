// Integration: the first request's work done at init (lib/app/runtime.ts `warmUp`): what it sends,
// and that init ends within its budget when DynamoDB is down or silent.
import { spawn } from "node:child_process";
import { type Server, type Socket, createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INIT_WORK_BUDGET_MS, warmUp } from "../../lib/app/runtime.js";
import type { LogFields } from "../../lib/http/logger.js";
import { freePort } from "../../scripts/lib/ports.mjs";
import { type PostsTable, connectStorage, freshTable, localConfig } from "../helpers/db.js";
import { invoke } from "../helpers/events.js";
import { handlersOver, recordingLogger } from "../helpers/handlers.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
let table: PostsTable;

beforeAll(async () => {
  table = await freshTable("init");
});
afterAll(async () => {
  await table.drop();
});

/** A runtime over the test's table whose client records every command it sends. */
function recordedRuntime(config = table.config) {
  const { client, repository } = connectStorage(config);
  const sent: { command: string | undefined; input: Record<string, unknown> }[] = [];
  client.middlewareStack.add(
    (next, context) => (args) => {
      sent.push({ command: context.commandName, input: args.input as Record<string, unknown> });
      return next(args);
    },
    { step: "initialize" },
  );
  return { client, posts: repository, sent, ...recordingLogger() };
}

describe("the call made at init", () => {
  it("is one GetItem of the id counter's item for get, create, update and delete", async () => {
    const runtime = recordedRuntime();
    await warmUp(runtime, (posts, signal) => posts.warmUp(signal));
    expect(runtime.sent).toEqual([
      {
        command: "GetItemCommand",
        input: expect.objectContaining({ TableName: table.tableName, Key: { id: 0 } }),
      },
    ]);
    expect(runtime.lines).toEqual([]);
    runtime.client.destroy();
  });

  it("for the list, builds its body with reads only; a write before the first list is patched in", async () => {
    await table.repository.create({ title: "before init", content: "" });
    const runtime = recordedRuntime();
    await warmUp(runtime, (posts, signal) => posts.listJson(signal));
    // The marker, then the Scan kept at the counts read before it.
    expect(runtime.sent.map((s) => s.command)).toEqual(["BatchGetItemCommand", "ScanCommand"]);
    const written = await table.repository.create({ title: "after init", content: "" });
    runtime.sent.length = 0;
    const first = await invoke(handlersOver(runtime.posts, runtime.logger).list, { method: "GET" });
    expect((first.body as { id: number }[]).map((post) => post.id)).toContain(written.id);
    // The marker, then that one post: no Scan.
    const commands = runtime.sent.map((s) => s.command);
    expect(commands).toEqual(["BatchGetItemCommand", "BatchGetItemCommand"]);
    runtime.client.destroy();
  });
});

describe("init with DynamoDB down", () => {
  let silent: Server;
  let silentPort = 0;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    // Accepts connections and never answers, as a blackholed endpoint would.
    silent = createServer((socket) => void sockets.push(socket));
    silentPort = await freePort();
    await new Promise<void>((resolve) => silent.listen(silentPort, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it.each([
    ["a closed port", async () => `http://127.0.0.1:${await freePort()}`],
    ["a listener that never answers", async () => `http://127.0.0.1:${silentPort}`],
  ])(
    "%s: init ends within its budget, says so in one line, and requests answer as always",
    async (_label, endpoint) => {
      const runtime = recordedRuntime(localConfig(await endpoint(), table.tableName));
      const works: Parameters<typeof warmUp>[1][] = [
        (posts, signal) => posts.warmUp(signal),
        (posts, signal) => posts.listJson(signal),
      ];
      for (const work of works) {
        const started = performance.now();
        await warmUp(runtime, work);
        expect(performance.now() - started).toBeLessThan(INIT_WORK_BUDGET_MS + 500);
      }
      expect(runtime.lines).toHaveLength(2);
      for (const line of runtime.lines) {
        expect(line.message).toBe("init work failed; the first request will do it");
        expect(line.fields?.error).toMatchObject({ name: expect.any(String) });
      }
      const answer = await invoke(handlersOver(runtime.posts, runtime.logger).get, {
        method: "GET",
        postId: "1",
      });
      expect(answer).toMatchObject({ status: 500, body: { detail: expect.any(String) } });
      runtime.client.destroy();
    },
    30_000,
  );

  it("the built bundle's init (its top-level await) ends within the budget too", async () => {
    const closed = await freePort();
    const script = `
      const started = performance.now();
      const { handler } = await import(${JSON.stringify(`${root}dist/get-post/index.mjs`)});
      process.stderr.write(JSON.stringify({ ms: performance.now() - started, handler: typeof handler }));
      process.exit(0);`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      env: {
        ...process.env,
        TABLE_NAME: "nowhere",
        AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${closed}`,
        AWS_REGION: "us-east-1",
        LOG_LEVEL: "error",
      },
    });
    const output = { stdout: "", stderr: "" };
    child.stdout.on("data", (chunk: Buffer) => (output.stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (output.stderr += chunk));
    expect(await new Promise((resolve) => child.on("close", resolve))).toBe(0);
    const report = JSON.parse(output.stderr) as { ms: number; handler: string };
    expect(report.handler).toBe("function");
    expect(report.ms).toBeLessThan(INIT_WORK_BUDGET_MS + 1_000);
    const logged = output.stdout.trim().split("\n");
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]!) as LogFields).toMatchObject({
      level: "ERROR",
      message: "init work failed; the first request will do it",
    });
  }, 30_000);
});
