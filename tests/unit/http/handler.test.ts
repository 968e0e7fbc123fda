// Unit: the wrapper answers before the function's timeout and aborts the storage call in flight,
// and writes each request's log line. The deadlines are tens of milliseconds: these tests run for
// most mutants of the HTTP edge.
import { afterEach, describe, expect, it, vi } from "vitest";
import { httpHandler } from "../../../lib/http/handler.js";
import type { ApiRequest } from "../../../lib/http/request.js";
import { ok } from "../../../lib/http/response.js";
import { apiEvent, invoke } from "../../helpers/events.js";
import { quietLogger, recordingLogger } from "../../helpers/handlers.js";

const GET = apiEvent({ method: "GET" });

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe("answering in time", () => {
  it("gives up on a step that does not finish and answers 500 before the function's timeout", async () => {
    const { logger, lines } = recordingLogger();
    const stuck = httpHandler(() => new Promise<never>(() => {}), logger);
    const started = Date.now();
    const response = await stuck(GET, { getRemainingTimeInMillis: () => 1_060 });
    expect(Date.now() - started).toBeLessThan(1_060);
    expect(response.statusCode).toBe(500);
    const detail = /TimeoutError: storage did not answer within 60 ms$/;
    expect(JSON.parse(response.body).detail).toMatch(detail);
    expect(lines[0]).toMatchObject({ level: "error", fields: { status: 500 } });
  });

  it("aborts the step's signal when the deadline passes, and only then", async () => {
    const seen: AbortSignal[] = [];
    const waiting = httpHandler(
      ({ scope: { signal } }) =>
        new Promise<never>((_, reject) => {
          seen.push(signal);
          signal.addEventListener("abort", () => reject(signal.reason));
        }),
      quietLogger,
    );
    const quick = httpHandler(
      async (request) => (seen.push(request.scope.signal), ok([])),
      quietLogger,
    );
    const context = { getRemainingTimeInMillis: () => 1_040 };
    expect((await waiting(GET, context)).statusCode).toBe(500);
    await quick(GET, context);
    expect(seen.map((signal) => signal.aborted)).toEqual([true, false]);
    expect(String(seen[0]?.reason)).toContain("storage did not answer within 40 ms");
  });

  it("leaves no timer behind once the step has answered", async () => {
    vi.useFakeTimers();
    await httpHandler(async () => ok([]), quietLogger)(GET);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("shows the step the route's path parameter only when the handler names it", async () => {
    const step = async (request: ApiRequest) => ok({ pathId: request.pathId ?? null });
    const seen = async (options?: { pathParameter: string }) =>
      (await invoke(httpHandler(step, quietLogger, options), { method: "GET", postId: 12 })).body;
    expect(await seen({ pathParameter: "post_pk" })).toEqual({ pathId: "12" });
    expect(await seen({ pathParameter: "other" })).toEqual({ pathId: null });
    expect(await seen()).toEqual({ pathId: null });
  });
});

describe("the request's log line", () => {
  it.each([
    ["request", "info", 200, async () => ok([])],
    ["request failed", "error", 500, async () => Promise.reject(new Error("boom"))],
  ])(
    "is %j at %s for a %i, with its route and duration in ms to 0.01",
    async (message, level, status, step) => {
      const { logger, lines } = recordingLogger();
      vi.spyOn(performance, "now").mockReturnValueOnce(1_000).mockReturnValueOnce(1_012.3456);
      await httpHandler(step, logger)(GET);
      const fields = { method: "GET", route: "GET /api/post", status, durationMs: 12.35 };
      expect(lines).toMatchObject([{ level, message, fields }]);
    },
  );

  it("is an error, and the answer a 500, when the answer cannot be compressed", async () => {
    const { logger, lines } = recordingLogger();
    const compress = () => Promise.reject(new Error("zlib failed"));
    const gzip = apiEvent({ method: "GET", headers: { "accept-encoding": "gzip" } });
    const answer = await httpHandler(async () => ok("x".repeat(5_000)), logger, { compress })(gzip);
    expect(answer.statusCode).toBe(500);
    expect(lines).toMatchObject([{ level: "error", fields: { status: 500 } }]);
  });

  it.each([
    ["no request context", undefined],
    ["a request context of only a request id", { requestId: "r-1" }],
  ])("is written for an event with %s, and the request answered", async (_label, context) => {
    const { logger, lines } = recordingLogger();
    const event = { ...GET, requestContext: context };
    expect((await httpHandler(async () => ok([]), logger)(event as never)).statusCode).toBe(200);
    expect(lines[0]?.fields).toMatchObject({ method: "GET", status: 200 });
    expect(lines[0]?.fields?.api_request_id).toBe(context?.requestId);
  });
});
