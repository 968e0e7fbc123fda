// The service's metrics as an operator will see them on the dashboard, summed from the request
// lines' Embedded Metric Format members (lib/http/metrics.ts): per function, requests, 4xx, 5xx,
// cold starts, latency p50 and p99, and the list cache's share of lists answered from memory.

/**
 * One function's summary: its `function_name`, requests, latency in the function (ms) at p50
 * and p99, and a sum for each of COUNTS.
 * @typedef {{ name: string, requests: number, p50: number, p99: number } & Record<keyof typeof COUNTS, number>} FunctionSummary
 */

/** The counts summed per function: the summary's name for each, and the metric it sums. */
const COUNTS = {
  clientErrors: "ClientErrors",
  serverErrors: "ServerErrors",
  coldStarts: "ColdStart",
  fromMemory: "ListFromMemory",
  scanned: "ListScanned",
  idsSkipped: "IdsSkipped",
  replays: "IdempotentReplays",
};

/** The value at quantile `q` of sorted numbers (nearest rank), or 0 for none. */
export function quantile(/** @type {number[]} */ sorted, /** @type {number} */ q) {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(Math.max(rank, 1), sorted.length) - 1] ?? 0;
}

/**
 * Sums request lines into one summary per function, in order of first appearance. Lines
 * without metrics (`_aws`) are not requests and are left out.
 * @param {Record<string, unknown>[]} lines
 * @returns {FunctionSummary[]}
 */
export function summarizeMetrics(lines) {
  /** @type {Map<string, { counts: Record<string, number>, latencies: number[] }>} */
  const byFunction = new Map();
  for (const line of lines) {
    if (!line._aws || typeof line.Latency !== "number") continue;
    const name = String(line.function_name);
    const zeros = Object.fromEntries(Object.keys(COUNTS).map((field) => [field, 0]));
    const entry = byFunction.get(name) ?? { counts: zeros, latencies: [] };
    byFunction.set(name, entry);
    entry.latencies.push(line.Latency);
    for (const [field, metric] of Object.entries(COUNTS)) {
      const value = line[metric];
      entry.counts[field] = (entry.counts[field] ?? 0) + (typeof value === "number" ? value : 0);
    }
  }
  return [...byFunction].map(([name, { counts, latencies }]) => {
    const sorted = latencies.sort((a, b) => a - b);
    const [p50, p99] = [quantile(sorted, 0.5), quantile(sorted, 0.99)];
    return /** @type {FunctionSummary} */ ({ name, requests: sorted.length, ...counts, p50, p99 });
  });
}

/** The table's columns: a title, and the cell of a function's row. */
const COLUMNS = /** @type {[string, (s: FunctionSummary) => string | number][]} */ ([
  ["function", (s) => s.name],
  ["requests", (s) => s.requests],
  ["4xx", (s) => s.clientErrors],
  ["5xx", (s) => s.serverErrors],
  ["cold", (s) => s.coldStarts],
  ["p50 ms", (s) => s.p50.toFixed(2)],
  ["p99 ms", (s) => s.p99.toFixed(2)],
  [
    "lists from memory",
    ({ fromMemory, scanned }) => {
      const lists = fromMemory + scanned;
      return lists === 0 ? "-" : `${((100 * fromMemory) / lists).toFixed(1)}% of ${lists}`;
    },
  ],
  ["ids skipped", (s) => s.idsSkipped],
  ["replays", (s) => s.replays],
]);

/** The summaries as a table a person reads, one function a row: names left, figures right. */
export function formatMetricsSummary(/** @type {FunctionSummary[]} */ summaries) {
  const rows = [
    COLUMNS.map(([title]) => title),
    ...summaries.map((s) => COLUMNS.map(([, cell]) => String(cell(s)))),
  ];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0)));
  const pad = (/** @type {string} */ cell, /** @type {number} */ i) =>
    i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0);
  return rows.map((row) => row.map(pad).join("  ")).join("\n");
}
