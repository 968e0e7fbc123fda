import { describe, expect, it } from "vitest";
import { pauseAt } from "../../../lib/spend/calendar.js";
import { pausedReply } from "../../../lib/http/spending.js";

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
