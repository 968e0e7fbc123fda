// Unit: the composition root builds an instance's logger and DynamoDB repository from a
// configuration, without touching the network; the init step never fails and never outlasts its
// budget (on DynamoDB Local: tests/integration/init-work.test.ts); V8's settings at init.
import { once } from "node:events";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createServer } from "node:net";
import { PerformanceObserver, constants } from "node:perf_hooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { mockClient } from "aws-sdk-client-mock";
import { collectYoungGarbage, favourMemory } from "../../../lib/app/heap.js";
import { rehearseGet } from "../../../lib/app/rehearsal.js";
import {
  INIT_WORK_BUDGET_MS,
  buildRuntime,
  dynamoRepository,
  preparedGetHandler,
  preparedHandler,
  warmUp,
} from "../../../lib/app/runtime.js";
import { createPost } from "../../../lib/http/routes.js";
import { IdempotencyError, StorageError } from "../../../lib/posts/errors.js";
import { createDocumentClient } from "../../../lib/storage/client.js";
import { invoke } from "../../helpers/events.js";
import { linesWrittenBy, recordingLogger } from "../../helpers/handlers.js";
import { InMemoryPostRepository } from "../../helpers/memory-repository.js";
import { DynamoPostRepository } from "../../../lib/storage/dynamo-repository.js";

const config = {
  tableName: "posts",
  idempotencyTableName: undefined,
  endpoint: "http://127.0.0.1:9",
  region: "us-east-1",
  logLevel: "info",
  serviceName: "blog-under-test",
  idBlockSize: 1,
  corsOrigins: [],
} as const;

const INIT_FAILED = "init work failed; the first request will do it";

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe("dynamoRepository", () => {
  it("wires the Idempotency-Key table when one is named, and turns the header away when not", async () => {
    const input = { title: "t", content: "c" };
    const request = { key: "k", fingerprint: "f" };
    const withKeys = createDocumentClient(config);
    // Any call that reaches the client fails: a create with a key got as far as storage.
    mockClient(withKeys).onAnyCommand().rejects(new Error("reached storage"));
    const keyed = dynamoRepository({ ...config, idempotencyTableName: "keys" }, withKeys);
    await expect(keyed.createOnce(input, request)).rejects.toThrow(/Error: reached storage$/);
    const unkeyed = dynamoRepository(config, createDocumentClient(config));
    await expect(unkeyed.createOnce(input, request)).rejects.toThrow(IdempotencyError);
  });
});

describe("buildRuntime", () => {
  it("wires the DynamoDB repository behind the interface", () => {
    expect(buildRuntime(config).posts).toBeInstanceOf(DynamoPostRepository);
  });

  it("meters its spending only with a limit and a table to keep the ledger in", () => {
    const spending = (limit: number | undefined, keys: string | undefined) =>
      buildRuntime({ ...config, spendLimitUsd: limit, idempotencyTableName: keys }).spending;
    expect(spending(1, "keys")?.meter).toBeDefined();
    expect([spending(undefined, "keys"), spending(1, undefined)]).toEqual([undefined, undefined]);
  });

  it("wires a logger at the configured level and service name", async () => {
    const lines = await linesWrittenBy(() => {
      buildRuntime(config).logger.info("hello");
      buildRuntime({ ...config, logLevel: "silent" }).logger.error("quiet");
    });
    expect(lines).toMatchObject([{ level: "INFO", message: "hello", service: "blog-under-test" }]);
  });
});

describe("warmUp", () => {
  const runtimeOver = () => {
    const { logger, lines } = recordingLogger();
    return { runtime: { logger, posts: new InMemoryPostRepository() }, lines };
  };

  it("runs the work over the instance's repository and is quiet when it succeeds", async () => {
    const { runtime, lines } = runtimeOver();
    const seen: unknown[] = [];
    await warmUp(runtime, async (posts, signal) => seen.push(posts, signal.aborted));
    expect(seen).toEqual([runtime.posts, false]);
    expect(lines).toEqual([]);
  });

  it("turns a failure into one error line naming its cause, and resolves", async () => {
    const { runtime, lines } = runtimeOver();
    const error = { name: "AccessDeniedException", message: "not allowed" };
    const cause = Object.assign(new Error(error.message), { name: error.name });
    const failure = new StorageError("AccessDeniedException: not allowed", { cause });
    // A clock far from zero, so a duration computed any other way than end minus start shows.
    vi.spyOn(performance, "now").mockReturnValueOnce(50_000).mockReturnValue(50_240.4);
    await expect(warmUp(runtime, () => Promise.reject(failure))).resolves.toBeUndefined();
    expect(lines).toEqual([
      { level: "error", message: INIT_FAILED, fields: { durationMs: 240, error } },
    ]);
  });

  it("logs a thrown value that is not an Error too", async () => {
    const { runtime, lines } = runtimeOver();
    await warmUp(runtime, () => Promise.reject("down"));
    expect(lines[0]?.fields?.error).toEqual({ name: "Error", message: "down" });
  });

  it("gives up at its budget, aborting the work's signal, even if the work never ends", async () => {
    const { runtime, lines } = runtimeOver();
    let signal: AbortSignal | undefined;
    const started = performance.now();
    await warmUp(runtime, (_posts, given) => ((signal = given), new Promise(() => {})), 50);
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(45);
    expect(took).toBeLessThan(1_000);
    expect(signal?.aborted).toBe(true);
    const timeout = { name: "TimeoutError", message: "init work took over 50 ms" };
    expect(lines[0]?.fields?.error).toEqual(timeout);
  });

  it("leaves no timer behind when the work ends first", async () => {
    vi.useFakeTimers();
    await warmUp(runtimeOver().runtime, async () => undefined);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("gives up after 2 s by default", async () => {
    vi.useFakeTimers();
    let ended = false;
    const done = warmUp(runtimeOver().runtime, () => new Promise(() => {}));
    void done.then(() => (ended = true));
    await vi.advanceTimersByTimeAsync(INIT_WORK_BUDGET_MS - 1);
    expect(ended).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await done;
    expect(ended).toBe(true);
    expect(INIT_WORK_BUDGET_MS).toBe(2_000);
  });
});

describe("the get's first request at init", () => {
  it("is rehearsed on each of its paths with no connection made, the post sent plain and gzipped", async () => {
    let connections = 0;
    const listener = createServer((socket) => (connections++, socket.destroy()));
    await once(listener.listen(0, "127.0.0.1"), "listening");
    const { port } = listener.address() as { port: number };
    try {
      const endpoint = `http://127.0.0.1:${port}`;
      const statuses = await rehearseGet({ ...config, endpoint }, ["https://app.example"]);
      expect(statuses).toEqual([200, 200, 304, 404]);
      expect(connections).toBe(0);
    } finally {
      listener.close();
    }
  });

  it("ends with a collection asked for, and leaves V8's gc unexposed", async () => {
    // A young collection, or a full one where V8 is already marking: both empty the young space.
    const forced: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const { detail } = entry as unknown as { detail: { kind: number; flags: number } };
        const { kind, flags } = detail;
        if (flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) forced.push(kind);
      }
    });
    observer.observe({ entryTypes: ["gc"] });
    const flags: string[] = [];
    try {
      collectYoungGarbage((flag) => (flags.push(flag), setFlagsFromString(flag)));
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      observer.disconnect();
    }
    expect(flags).toEqual(["--expose-gc", "--no-expose-gc"]);
    expect(forced).toHaveLength(1);
    expect(runInNewContext("typeof gc")).toBe("undefined");
  });

  // Port 9 refuses the init read at once: one error line, then requests go on as always.
  const write = () => preparedHandler(config, createPost);
  it.each([
    ["GET /api/post/{post_pk}", () => preparedGetHandler(config), { method: "GET", postId: "1" }],
    ["POST /api/post", write, { method: "POST", body: { title: "t", content: "c" } }],
  ] as const)(
    "leaves %s's handler answering, its first request the cold start",
    async (route, prepare, event) => {
      const lines = await linesWrittenBy(async () => {
        const answer = await invoke(await prepare(), event);
        // The storage failure's own detail, not the bare 500 of an unexpected error.
        expect(answer.body).toEqual({ detail: expect.stringContaining("ECONNREFUSED") });
        expect(answer.status).toBe(500);
      });
      expect(lines.map((line) => line.message)).toEqual([INIT_FAILED, "request failed"]);
      expect(lines[1]).toMatchObject({ cold_start: true, route });
    },
  );
});

// V8 has no way to read a flag back, so the call is seen through the setter it is handed.
describe("favourMemory, the list function's V8 setting", () => {
  it("asks V8 to favour a small heap over speed, once", () => {
    const set: string[] = [];
    favourMemory((flags) => set.push(flags));
    expect(set).toEqual(["--optimize-for-size"]);
  });

  it("sets it in this very V8 by default, which then goes on running", () => {
    expect(() => favourMemory()).not.toThrow();
  });
});
