// Unit tests: `npm run load`'s summary of the metrics in the functions' log lines.
import { describe, expect, it } from "vitest";
import { quantile, summarizeMetrics } from "../../../scripts/lib/metrics-summary.mjs";

const line = (fields: Record<string, unknown>) => ({
  _aws: { Timestamp: 1, CloudWatchMetrics: [] },
  ClientErrors: 0,
  ServerErrors: 0,
  ColdStart: 0,
  ...fields,
});

describe("quantile", () => {
  it("takes the nearest rank, and 0 for nothing", () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(quantile(sorted, 0.5)).toBe(50);
    expect(quantile(sorted, 0.99)).toBe(99);
    expect(quantile(sorted, 1)).toBe(100);
    expect(quantile([7], 0.99)).toBe(7);
    expect(quantile([3, 9], 0.5)).toBe(3);
    expect(quantile([], 0.5)).toBe(0);
  });
});

describe("summarizeMetrics", () => {
  it("sums each function's counts, its lists by every path, and its latency quantiles, leaving out lines without metrics", () => {
    const lines = [
      line({ function_name: "list", Latency: 10, ColdStart: 1, ListScanned: 1 }),
      line({ function_name: "list", Latency: 2, ListPatched: 1 }),
      line({ function_name: "create", Latency: 40, ClientErrors: 1, IdsSkipped: 2 }),
      line({ function_name: "list", Latency: 3.504, ListFromMemory: 1 }),
      line({ function_name: "create", Latency: 50, ServerErrors: 1, IdempotentReplays: 1 }),
      { message: "init work failed", function_name: "list", Latency: 999 },
    ];
    expect(summarizeMetrics(lines)).toEqual({
      list: {
        requests: 3,
        "4xx": 0,
        "5xx": 0,
        cold: 1,
        "p50 ms": 3.5,
        "p99 ms": 10,
        lists: 3,
        "% from memory": 33.33,
      },
      create: { requests: 2, "4xx": 1, "5xx": 1, cold: 0, "p50 ms": 40, "p99 ms": 50 },
    });
    expect(Object.keys(summarizeMetrics(lines))).toEqual(["list", "create"]);
  });
});
