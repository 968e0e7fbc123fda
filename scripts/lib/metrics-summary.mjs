// The service's metrics as an operator will see them on the dashboard, summed per function from
// the request lines' Embedded Metric Format members (lib/http/metrics.ts).

/**
 * The counts summed per function: a column's title, and the metric it sums. `npm run load` sends
 * no client-chosen id and no Idempotency-Key, so IdsSkipped and IdempotentReplays stay out.
 */
const COUNTS = {
  "4xx": "ClientErrors",
  "5xx": "ServerErrors",
  cold: "ColdStart",
};

const round = (/** @type {number} */ value) => Math.round(value * 100) / 100;

/** The value at quantile `q` of sorted numbers (nearest rank), or 0 for none. */
export const quantile = (/** @type {number[]} */ sorted, /** @type {number} */ q) =>
  sorted[Math.max(Math.ceil(q * sorted.length), 1) - 1] ?? 0;

/**
 * One row per function (by `function_name`, in order of first appearance), for console.table:
 * requests, the COUNTS, the latency in the function at p50 and p99 (ms), and for the list function
 * its lists and the share answered from memory. Lines without metrics (`_aws`) are left out.
 * @param {Record<string, unknown>[]} lines
 * @returns {Record<string, Record<string, number>>}
 */
export function summarizeMetrics(lines) {
  /** @type {Map<string, Record<string, unknown>[]>} */
  const byFunction = new Map();
  for (const line of lines.filter((line) => line._aws && typeof line.Latency === "number")) {
    const name = String(line.function_name);
    if (!byFunction.has(name)) byFunction.set(name, []);
    byFunction.get(name)?.push(line);
  }
  const sum = (/** @type {Record<string, unknown>[]} */ rows, /** @type {string} */ metric) =>
    rows.reduce((total, row) => total + (typeof row[metric] === "number" ? row[metric] : 0), 0);
  const summaries = [...byFunction].map(([name, rows]) => {
    const latencies = rows.map((row) => Number(row.Latency)).sort((a, b) => a - b);
    const fromMemory = sum(rows, "ListFromMemory");
    // As the dashboard counts them: from memory, patched with the posts written since, or scanned.
    const lists = fromMemory + sum(rows, "ListPatched") + sum(rows, "ListScanned");
    const counts = Object.entries(COUNTS).map(([title, metric]) => [title, sum(rows, metric)]);
    const row = {
      requests: rows.length,
      ...Object.fromEntries(counts),
      "p50 ms": round(quantile(latencies, 0.5)),
      "p99 ms": round(quantile(latencies, 0.99)),
      ...(lists > 0 && { lists, "% from memory": round((100 * fromMemory) / lists) }),
    };
    return [name, row];
  });
  return Object.fromEntries(summaries);
}
