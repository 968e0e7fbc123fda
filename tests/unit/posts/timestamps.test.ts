import { afterEach, describe, expect, it, vi } from "vitest";
import { formatTimestamp, now, parseClientTimestamp } from "../../../lib/posts/timestamps.js";

const useZone = (zone: string) => vi.stubEnv("TZ", zone);
// The mutation runs share a process between files, without vitest's own unstubbing.
afterEach(() => vi.unstubAllEnvs());

describe("formatTimestamp", () => {
  it.each([
    ["UTC", "2026-03-04T15:06:07.000Z", "2026-04-03 15:06:07"],
    ["UTC", "2026-12-31T23:59:59.999Z", "2026-31-12 23:59:59"],
    ["UTC", "0999-01-02T03:04:05.000Z", "0999-02-01 03:04:05"],
    ["Asia/Tokyo", "2026-03-04T15:06:07.000Z", "2026-05-03 00:06:07"],
    ["America/New_York", "2026-07-01T02:00:00.000Z", "2026-30-06 22:00:00"],
  ])("in %s shows %s as %s (day before month, 24-hour clock)", (zone, stored, shown) => {
    useZone(zone);
    expect(formatTimestamp(stored)).toBe(shown);
  });
});

describe("parseClientTimestamp", () => {
  it.each([
    ["UTC", "2026-04-03 15:06:07", "2026-03-04T15:06:07.000Z"],
    ["Asia/Tokyo", "2026-05-03 00:06:07", "2026-03-04T15:06:07.000Z"],
    ["UTC", "2026-03-04T15:06:07Z", "2026-03-04T15:06:07.000Z"],
    ["UTC", "2026-03-04T15:06:07.5+02:00", "2026-03-04T13:06:07.500Z"],
    ["UTC", "2026-03-04T15:06-01:30", "2026-03-04T16:36:00.000Z"],
    ["UTC", "2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z"],
    ["UTC", "2026-30-04 23:59:59", "2026-04-30T23:59:59.000Z"], // a month's last day
    ["UTC", "2026-02-28T23:59:59+00:00", "2026-02-28T23:59:59.000Z"], // a day's last hour
  ])("in %s reads %s", (zone, text, stored) => {
    useZone(zone);
    expect(parseClientTimestamp(text)).toBe(stored);
  });

  it("reads its own output back to the same second", () => {
    useZone("Europe/Paris");
    const stored = "2026-10-25T12:34:56.000Z";
    expect(parseClientTimestamp(formatTimestamp(stored))).toBe(stored);
  });

  it("keeps null, and shows it as null", () => {
    expect(parseClientTimestamp(null)).toBeNull();
    expect(formatTimestamp(null)).toBeNull();
  });

  it.each([
    ["a number", 1700000000],
    ["an object", {}],
    ["an empty string", ""],
    ["a date only", "2026-03-04"],
    ["ISO without an offset", "2026-03-04T15:06:07"],
    ["month 13 in the service format", "2026-01-13 00:00:00"],
    ["day 31 of a 30-day month", "2026-31-04 00:00:00"],
    ["hour 24", "2026-01-01 24:00:00"],
    ["February 30 in ISO", "2026-02-30T00:00:00Z"],
    ["February 29 of a common year", "2025-02-29T00:00:00Z"],
    ["hour 24 in ISO", "2026-03-04T24:00:00Z"],
    ["the service format inside an array", ["2026-04-03 15:06:07"]],
    ["ISO inside an array", ["2026-03-04T15:06:07Z"]],
    ["minute 60", "2026-04-03 15:60:00"],
    ["second 60", "2026-04-03 15:06:60"],
    ["a slash date", "2026/03/04 15:06:07"],
    ["trailing text", "2026-04-03 15:06:07 UTC"],
    // Some zone would show these with a year outside 0000-9999.
    ["year 0000", "0000-06-01T00:00:00Z"],
    ["year 9999", "9999-06-01T00:00:00Z"],
  ])("rejects %s", (_label, value) => {
    useZone("UTC");
    expect(parseClientTimestamp(value)).toBeUndefined();
  });

  it("rejects a local time that a daylight-saving jump skips", () => {
    useZone("Europe/Berlin");
    // 2026-03-29 02:30 does not exist in Berlin: clocks go from 02:00 to 03:00.
    expect(parseClientTimestamp("2026-29-03 02:30:00")).toBeUndefined();
  });
});

describe("timestamps at the ends of the calendar", () => {
  it.each([
    ["America/New_York", "0001-01-01T00:00:00Z", /^0000-31-12 \d{2}:\d{2}:\d{2}$/],
    ["Asia/Tokyo", "9998-12-31T23:30:00Z", /^9999-01-01 \d{2}:\d{2}:\d{2}$/],
  ])("in %s shows %s with a four-digit year", (zone, text, shown) => {
    useZone(zone);
    expect(formatTimestamp(parseClientTimestamp(text) ?? null)).toMatch(shown);
  });
});

describe("now", () => {
  it("is the current instant in the stored form", () => {
    const before = Date.now();
    const stored = now();
    expect(stored).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Date.parse(stored)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(stored)).toBeLessThanOrEqual(Date.now());
  });
});
