// The service's metrics as an operator will see them on the dashboard, summed from the request
// lines' Embedded Metric Format members (lib/http/metrics.ts): per function, requests, 4xx, 5xx,
// cold starts, latency p50 and p99, and the list cache's share of lists answered from memory.

/**
 * @typedef {object} FunctionSummary
 * @property {string} name the function (its `function_name`, the route's)
 * @property {number} requests
 * @property {number} clientErrors
 * @property {number} serverErrors
 * @property {number} coldStarts
 * @property {number} p50 latency in the function, ms
 * @property {number} p99
 * @property {number} fromMemory lists answered from memory
 * @property {number} scanned lists answered by a Scan
 * @property {number} idsSkipped
 * @property {number} replays Idempotency-Key replays
 */

/** The value at quantile `q` of sorted numbers (nearest rank), or 0 for none. */
export function quantile(/** @type {number[]} */ sorted, /** @type {number} */ q) {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(Math.max(rank, 1), sorted.length) - 1] ?? 0;
}

const num = (/** @type {unknown} */ value) => (typeof value === "number" ? value : 0);

/**
 * Sums request lines into one summary per function, in order of first appearance. Lines
 * without metrics (`_aws`) are not requests and are left out.
 * @param {Record<string, unknown>[]} lines
 * @returns {FunctionSummary[]}
 */
export function summarizeMetrics(lines) {
  /** @type {Map<string, FunctionSummary & { latencies: number[] }>} */
  const byFunction = new Map();
  for (const line of lines) {
    if (!line._aws || typeof line.Latency !== "number") continue;
    const name = String(line.function_name);
    let entry = byFunction.get(name);
    if (!entry) {
      entry = {
        name,
        requests: 0,
        clientErrors: 0,
        serverErrors: 0,
        coldStarts: 0,
        p50: 0,
        p99: 0,
        fromMemory: 0,
        scanned: 0,
        idsSkipped: 0,
        replays: 0,
        latencies: [],
      };
      byFunction.set(name, entry);
    }
    entry.requests += 1;
    entry.latencies.push(line.Latency);
    entry.clientErrors += num(line.ClientErrors);
    entry.serverErrors += num(line.ServerErrors);
    entry.coldStarts += num(line.ColdStart);
    entry.fromMemory += num(line.ListFromMemory);
    entry.scanned += num(line.ListScanned);
    entry.idsSkipped += num(line.IdsSkipped);
    entry.replays += num(line.IdempotentReplays);
  }
  return [...byFunction.values()].map(({ latencies, ...entry }) => {
    const sorted = latencies.sort((a, b) => a - b);
    return { ...entry, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
  });
}

/** The summaries as a table a person reads, one function a row. */
export function formatMetricsSummary(/** @type {FunctionSummary[]} */ summaries) {
  const header = [
    "function",
    "requests",
    "4xx",
    "5xx",
    "cold",
    "p50 ms",
    "p99 ms",
    "lists from memory",
    "ids skipped",
    "replays",
  ];
  const rows = summaries.map((s) => {
    const lists = s.fromMemory + s.scanned;
    const share = lists === 0 ? "-" : `${((100 * s.fromMemory) / lists).toFixed(1)}% of ${lists}`;
    return [
      s.name,
      s.requests,
      s.clientErrors,
      s.serverErrors,
      s.coldStarts,
      s.p50.toFixed(2),
      s.p99.toFixed(2),
      share,
      s.idsSkipped,
      s.replays,
    ].map(String);
  });
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => row[i]?.length ?? 0)),
  );
  const format = (/** @type {string[]} */ cells) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ");
  return [format(header), ...rows.map(format)].join("\n");
}
