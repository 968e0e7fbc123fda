// The service's metrics as an operator will see them on the dashboard, summed per function from
// the request lines' Embedded Metric Format members (lib/http/metrics.ts).

const round = (/** @type {number} */ value) => Math.round(value * 100) / 100;

/** The value at quantile `q` of sorted numbers (nearest rank), or 0 for none. */
export const quantile = (/** @type {number[]} */ sorted, /** @type {number} */ q) =>
  sorted[Math.max(Math.ceil(q * sorted.length), 1) - 1] ?? 0;

/**
 * One row per function (by `function_name`, in order of first appearance), for console.table:
 * requests, its 4xx, 5xx and cold starts, the latency in the function at p50 and p99 (ms), and for
 * the list function its lists and the share answered from memory. Lines without metrics (`_aws`)
 * are left out. `npm run load` sends no client-chosen id and no Idempotency-Key, so IdsSkipped and
 * IdempotentReplays stay out.
 * @param {Record<string, unknown>[]} lines
 * @returns {Record<string, Record<string, number>>}
 */
export function summarizeMetrics(lines) {
  const measured = lines.filter((line) => line._aws && typeof line.Latency === "number");
  const names = new Set(measured.map((line) => String(line.function_name)));
  const sum = (/** @type {Record<string, unknown>[]} */ rows, /** @type {string} */ metric) =>
    rows.reduce((total, row) => total + (typeof row[metric] === "number" ? row[metric] : 0), 0);
  const summaries = [...names].map((name) => {
    const rows = measured.filter((line) => String(line.function_name) === name);
    const latencies = rows.map((row) => Number(row.Latency)).sort((a, b) => a - b);
    const fromMemory = sum(rows, "ListFromMemory");
    // As the dashboard counts them: from memory, patched with the posts written since, or scanned.
    const lists = fromMemory + sum(rows, "ListPatched") + sum(rows, "ListScanned");
    const row = {
      requests: rows.length,
      "4xx": sum(rows, "ClientErrors"),
      "5xx": sum(rows, "ServerErrors"),
      cold: sum(rows, "ColdStart"),
      "p50 ms": round(quantile(latencies, 0.5)),
      "p99 ms": round(quantile(latencies, 0.99)),
      ...(lists > 0 && { lists, "% from memory": round((100 * fromMemory) / lists) }),
    };
    return [name, row];
  });
  return Object.fromEntries(summaries);
}
