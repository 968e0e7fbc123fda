// Unit: the client's pacing of retries: Retry-After read as seconds or a date, and a backoff
// that doubles its ceiling up to the maximum, jittered below it.
import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY, backoffMs, retryAfterMs } from "../../../client/transport.mjs";

describe("Retry-After and backoff", () => {
  it.each([
    ["2", 2000],
    ["0", 0],
    ["Wed, 21 Oct 2015 07:28:05 GMT", 5000],
    ["soon", undefined],
    [null, undefined],
  ])("Retry-After %j waits %j ms", (header, expected) => {
    expect(retryAfterMs(header, Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"))).toBe(expected);
  });

  it("doubles its ceiling each attempt up to the maximum, jittered below it", () => {
    expect(backoffMs(0, DEFAULT_RETRY, () => 1)).toBe(DEFAULT_RETRY.baseDelayMs);
    expect(backoffMs(3, DEFAULT_RETRY, () => 1)).toBe(DEFAULT_RETRY.baseDelayMs * 8);
    expect(backoffMs(30, DEFAULT_RETRY, () => 1)).toBe(DEFAULT_RETRY.maxDelayMs);
    expect(backoffMs(3, DEFAULT_RETRY, () => 0.5)).toBe(DEFAULT_RETRY.baseDelayMs * 4);
  });
});
