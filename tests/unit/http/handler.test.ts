// Unit: the wrapper answers before the function's timeout and aborts the storage call in flight.
// The deadlines are tens of milliseconds: these tests run for most mutants of the HTTP edge.
import type { APIGatewayProxyResult } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { httpHandler } from "../../../lib/http/handler.js";
import { ok } from "../../../lib/http/response.js";
import { apiEvent, invoke } from "../../helpers/events.js";
import { recordingLogger } from "../../helpers/handlers.js";

describe("answering in time", () => {
  it("gives up on a step that does not finish and answers 500 before the function's timeout", async () => {
    const { logger, lines } = recordingLogger();
    const stuck = httpHandler(() => new Promise<never>(() => {}), logger);
    const started = Date.now();
    const response = (await stuck(apiEvent({ method: "GET" }), {
      getRemainingTimeInMillis: () => 1_060,
    })) as APIGatewayProxyResult;
    expect(Date.now() - started).toBeLessThan(1_060);
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body ?? "").detail).toMatch(
      /TimeoutError: storage did not answer within 60 ms$/,
    );
    expect(lines[0]).toMatchObject({ level: "error", fields: { status: 500 } });
  });

  it("aborts the step's signal when the deadline passes, and only then", async () => {
    const seen: AbortSignal[] = [];
    const waiting = httpHandler(
      (request) =>
        new Promise<never>((_, reject) => {
          seen.push(request.scope.signal);
          request.scope.signal.addEventListener("abort", () => reject(request.scope.signal.reason));
        }),
      recordingLogger().logger,
    );
    const quick = httpHandler(async (request) => {
      seen.push(request.scope.signal);
      return ok([]);
    }, recordingLogger().logger);
    const context = { getRemainingTimeInMillis: () => 1_040 };
    const late = (await waiting(apiEvent({ method: "GET" }), context)) as { statusCode: number };
    await quick(apiEvent({ method: "GET" }), context);
    expect(late.statusCode).toBe(500);
    expect(seen.map((signal) => signal.aborted)).toEqual([true, false]);
    expect(String(seen[0]?.reason)).toContain("storage did not answer within 40 ms");
  });

  it("shows the step the route's path parameter only when the handler names it", async () => {
    const echo = (options?: { pathParameter: string }) =>
      httpHandler(
        async (request) => ok({ pathId: request.pathId ?? null }),
        recordingLogger().logger,
        options,
      );
    const event = { method: "GET" as const, postId: "12" };
    expect((await invoke(echo({ pathParameter: "post_pk" }), event)).body).toEqual({
      pathId: "12",
    });
    expect((await invoke(echo({ pathParameter: "other" }), event)).body).toEqual({ pathId: null });
    expect((await invoke(echo(), event)).body).toEqual({ pathId: null });
  });
});
