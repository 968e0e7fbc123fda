// Unit tests: `npm run load`'s summary of the metrics in the functions' log lines.
import { describe, expect, it } from "vitest";
import { quantile, summarizeMetrics } from "../../../scripts/lib/metrics-summary.mjs";

const emf = { _aws: { Timestamp: 1, CloudWatchMetrics: [] }, ClientErrors: 0, ServerErrors: 0 };
const line = (fields: Record<string, unknown>) => ({ ...emf, ColdStart: 0, ...fields });

describe("quantile", () => {
  it("takes the nearest rank, and 0 for nothing", () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([0.5, 0.99, 1].map((q) => quantile(sorted, q))).toEqual([50, 99, 100]);
    expect([quantile([7], 0.99), quantile([3, 9], 0.5), quantile([], 0.5)]).toEqual([7, 3, 0]);
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
    const list = { requests: 3, "4xx": 0, "5xx": 0, cold: 1, "p50 ms": 3.5, "p99 ms": 10 };
    const create = { requests: 2, "4xx": 1, "5xx": 1, cold: 0, "p50 ms": 40, "p99 ms": 50 };
    const summary = summarizeMetrics(lines);
    expect(summary).toEqual({ list: { ...list, lists: 3, "% from memory": 33.33 }, create });
    expect(Object.keys(summary)).toEqual(["list", "create"]);
  });
});
