// Unit: a paused stage's 503, and what the pipeline tells the spending limit each answer used.
import { describe, expect, it } from "vitest";
import { pauseAt } from "../../../lib/spend/calendar.js";
import { httpHandler } from "../../../lib/http/handler.js";
import { createLogger } from "../../../lib/http/logger.js";
import type { ApiRequest } from "../../../lib/http/request.js";
import { ok } from "../../../lib/http/response.js";
import { type Served, type SpendGuard, pausedReply } from "../../../lib/http/spending.js";
import { apiEvent } from "../../helpers/api-event.mjs";

describe("a paused stage's answer", () => {
  it.each([
    [10, "$10.00"],
    [0.05, "$0.05"],
    [2.5, "$2.50"],
    [0.125, "$0.125"],
  ])("names a limit of %s as %s, and when it lifts", (limit, shown) => {
    const reply = pausedReply(pauseAt(limit, Date.UTC(2026, 10, 30, 23, 0)));
    expect(reply).toEqual({
      statusCode: 503,
      body: {
        detail:
          `This stage has reached its spending limit of ${shown} for 2026-11 (UTC) and is ` +
          "paused until 2026-12-01 00:00 UTC, or until its owner resumes it",
      },
      headers: { "retry-after": "3600" },
    });
  });
});

describe("the pipeline and the spending limit", () => {
  const quiet = createLogger("silent");
  const guardWith = (pause: ReturnType<typeof pauseAt> | undefined) => {
    const served: Served[] = [];
    const guard: SpendGuard = {
      pause: async () => pause,
      served: async (request) => void served.push(request),
    };
    return { guard, served };
  };

  it("answers a paused stage's 503 without running the route's step", async () => {
    const { guard, served } = guardWith(pauseAt(10, Date.UTC(2026, 10, 30, 23, 0)));
    let ran = false;
    const step = async () => ((ran = true), ok({}));
    const answer = await httpHandler(step, quiet, { spend: guard })(apiEvent({ method: "GET" }));
    expect([answer.statusCode, answer.headers?.["retry-after"], ran]).toEqual([503, "3600", false]);
    expect(served).toHaveLength(1);
  });

  it("counts each answer's bytes as sent, its units and its time", async () => {
    const { guard, served } = guardWith(undefined);
    const step = async (request: ApiRequest) => {
      request.scope.counts.ReadUnits = 1.5;
      request.scope.counts.WriteUnits = 2;
      return ok({ text: "x".repeat(100) });
    };
    const answer = await httpHandler(step, quiet, { spend: guard })(apiEvent({ method: "GET" }));
    expect(answer.statusCode).toBe(200);
    const counted = { bytesOut: Buffer.byteLength(answer.body), readUnits: 1.5, writeUnits: 2 };
    expect(served).toEqual([{ ...counted, durationMs: expect.any(Number) }]);
    expect(served[0]?.durationMs).toBeGreaterThanOrEqual(0);
    expect(served[0]?.durationMs).toBeLessThan(5_000);
    const bare = async () => ok({});
    await httpHandler(bare, quiet, { spend: guard })(apiEvent({ method: "GET" }));
    expect(served[1]).toMatchObject({ readUnits: 0, writeUnits: 0 });
  });
});
