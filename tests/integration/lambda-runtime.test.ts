// Integration: the Lambda runtime harness itself, with a fixture handler run by aws-lambda-ric, so
// the tests that use it can trust what it parses (a failure after the first byte: list-stream's).
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Invocation,
  type LambdaRuntime,
  PRELUDE_CONTENT_TYPE,
  splitPrelude,
  skipWithoutRuntimeClient,
  startLambdaRuntime,
} from "../helpers/lambda-runtime.js";

const skipped = skipWithoutRuntimeClient();
const fixtures = fileURLToPath(new URL("../helpers/fixtures", import.meta.url));

function as<K extends Invocation["kind"]>(invocation: Invocation, kind: K) {
  expect(invocation.kind).toBe(kind);
  return invocation as Extract<Invocation, { kind: K }>;
}

// serverless.yml's logFormat: JSON, so the runtime's own lines are JSON too.
const env = { AWS_LAMBDA_LOG_FORMAT: "JSON" };
const start = (handler: string) => startLambdaRuntime({ bundleDir: fixtures, handler, env });

describe.skipIf(skipped)("a streamed handler under the runtime's own client", () => {
  let runtime: LambdaRuntime;
  beforeAll(async () => {
    runtime = await start("streaming-handler.handler");
  });
  afterAll(() => runtime.stop());

  it("parses a streamed answer into its prelude and the exact body, and times it", async () => {
    const answer = as(await runtime.invoke({ mode: "stream" }), "streamed");
    expect(answer).toMatchObject({ complete: true, contentType: PRELUDE_CONTENT_TYPE });
    const headers = { "content-type": "application/json" };
    expect(answer.prelude).toEqual({ statusCode: 200, headers, cookies: ["seen=1"] });
    expect(answer.body.toString()).toBe('[{"n":1},{"n":2}]');
    expect(answer.raw.subarray(-answer.body.length)).toEqual(answer.body);
    expect(answer.firstByteMs).toBeGreaterThan(0);
    expect(answer.firstByteMs).toBeLessThan(answer.totalMs);
    // The fixture waits 20 ms after its first chunk (timers may fire a millisecond early).
    expect(answer.totalMs).toBeGreaterThanOrEqual(19);
    expect(runtime.initMs()).toBeGreaterThan(0);
    const memory = runtime.memory();
    expect(memory.rssBytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(memory.peakRssBytes).toBeGreaterThanOrEqual(memory.rssBytes);
  });

  it("shows a failure before the first write as an empty, incomplete stream, not /error", async () => {
    const answer = as(await runtime.invoke({ mode: "fail-before-write" }), "streamed");
    expect(answer).toMatchObject({ complete: false, errorType: "TypeError", prelude: undefined });
    expect(answer.raw).toHaveLength(0);
    expect(answer.firstByteMs).toBeUndefined();
  });

  it("refuses a prelude-typed answer without the 8-NUL delimiter", async () => {
    await expect(runtime.invoke({ mode: "no-delimiter" })).rejects.toThrow(/8 NUL bytes/);
    expect(() => splitPrelude(Buffer.from('{"statusCode":200}[]'))).toThrow(/8 NUL bytes/);
    const { prelude, body } = splitPrelude(Buffer.from('{"statusCode":204}\0\0\0\0\0\0\0\0'));
    expect([prelude, body.length]).toEqual([{ statusCode: 204 }, 0]);
  });
});

describe.skipIf(skipped)("the harness's other paths", () => {
  const runtimes: LambdaRuntime[] = [];
  const started = async (...args: Parameters<typeof start>) => {
    const runtime = await start(...args);
    runtimes.push(runtime);
    return runtime;
  };
  afterAll(() => Promise.all(runtimes.map((runtime) => runtime.stop())));

  it("cuts an answer never ended at the timeout, and restarts the runtime as Lambda does", async () => {
    const runtime = await started("streaming-handler.handler");
    const first = runtime.pid;
    const cut = as(await runtime.invoke({ mode: "unended" }, { timeoutMs: 300 }), "streamed");
    expect(cut).toMatchObject({ complete: false, errorType: "Sandbox.Timedout" });
    expect(cut.body.toString()).toBe('[{"n":1}');
    const next = as(await runtime.invoke({}), "streamed");
    expect(next.complete).toBe(true);
    expect(runtime.pid).not.toBe(first);
  });

  it("reads a buffered result, and an error posted to /error", async () => {
    const runtime = await started("streaming-handler.buffered");
    const result = as(await runtime.invoke({}), "buffered");
    expect(result.result).toEqual({ statusCode: 200, body: "buffered" });
    const failed = as(await runtime.invoke({ mode: "throw" }), "error");
    expect(failed).toMatchObject({ errorType: "Error", errorMessage: "buffered failure" });
  });

  it("rejects an invoke when the runtime's init fails", async () => {
    const runtime = await started("streaming-handler.missing");
    await expect(runtime.invoke({})).rejects.toThrow(
      /Lambda init failed: Runtime.HandlerNotFound: streaming-handler.missing is undefined/,
    );
  });
});
