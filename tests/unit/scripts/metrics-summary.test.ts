// Unit tests: `npm run load`'s summary of the metrics in the functions' log lines.
import { describe, expect, it } from "vitest";
import {
  formatMetricsSummary,
  quantile,
  summarizeMetrics,
} from "../../../scripts/lib/metrics-summary.mjs";

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
    expect(quantile([7], 0.99)).toBe(7);
    expect(quantile([3, 9], 0.5)).toBe(3);
    expect(quantile([], 0.5)).toBe(0);
  });
});

describe("summarizeMetrics", () => {
  it("sums each function's counts and takes its latency quantiles, leaving out lines without metrics", () => {
    const lines = [
      line({ function_name: "list", Latency: 10, ColdStart: 1, ListScanned: 1 }),
      line({ function_name: "list", Latency: 2, ListFromMemory: 1 }),
      line({ function_name: "list", Latency: 3, ListFromMemory: 1 }),
      line({ function_name: "create", Latency: 40, ClientErrors: 1, IdsSkipped: 2 }),
      line({ function_name: "create", Latency: 50, ServerErrors: 1, IdempotentReplays: 1 }),
      { message: "init work failed", function_name: "list", Latency: 999 },
    ];
    expect(summarizeMetrics(lines)).toEqual([
      {
        name: "list",
        requests: 3,
        clientErrors: 0,
        serverErrors: 0,
        coldStarts: 1,
        p50: 3,
        p99: 10,
        fromMemory: 2,
        scanned: 1,
        idsSkipped: 0,
        replays: 0,
      },
      {
        name: "create",
        requests: 2,
        clientErrors: 1,
        serverErrors: 1,
        coldStarts: 0,
        p50: 40,
        p99: 50,
        fromMemory: 0,
        scanned: 0,
        idsSkipped: 2,
        replays: 1,
      },
    ]);
  });

  it("prints one row a function, the list cache's share where lists were answered", () => {
    const text = formatMetricsSummary(
      summarizeMetrics([
        line({ function_name: "list", Latency: 1.5, ListFromMemory: 1 }),
        line({ function_name: "list", Latency: 2.5, ListScanned: 1 }),
        line({ function_name: "get", Latency: 1 }),
      ]),
    ).split("\n");
    expect(text).toHaveLength(3);
    expect(text[0]).toMatch(
      /^function\s+requests\s+4xx\s+5xx\s+cold\s+p50 ms\s+p99 ms\s+lists from memory/,
    );
    expect(text[1]).toMatch(/^list\s+2\s+0\s+0\s+0\s+1\.50\s+2\.50\s+50\.0% of 2\s+0\s+0$/);
    expect(text[2]).toMatch(/^get\s+1\s+0\s+0\s+0\s+1\.00\s+1\.00\s+-\s+0\s+0$/);
  });
});
