// Metrics: each request's log line is also a CloudWatch Embedded Metric Format document, so
// CloudWatch Logs turns it into metrics with no call to CloudWatch and no library in the bundle
// (docs/operating.md lists them, their dimensions and their cost).

/** The CloudWatch namespace of the service's own metrics. */
export const METRICS_NAMESPACE = "BlogPostApi";

/**
 * The edge's own metrics, on every request line, with their units. Beside them a line carries
 * the counts storage kept for the request, each a Count, named by storage
 * (lib/storage/counts.ts), present only where the request's storage path took them.
 */
export const METRIC_UNITS = {
  /** The request's time in the function, as `durationMs`. */
  Latency: "Milliseconds",
  /** 1 when the answer was 4xx, else 0; likewise 5xx. */
  ClientErrors: "Count",
  ServerErrors: "Count",
  /** 1 on the first request of an instance (not provisioned concurrency), else 0. */
  ColdStart: "Count",
} as const;

export type MetricName = keyof typeof METRIC_UNITS;

/** A metric's unit: the edge's own, else a storage count's. */
const unitOf = (name: string): string =>
  (METRIC_UNITS as Record<string, string | undefined>)[name] ?? "Count";

/**
 * The dimensions every metric is kept by: the service and the function (one per route, and
 * named with the stage), so a metric costs one series per function and no more.
 */
export const METRIC_DIMENSIONS = ["service", "function_name"] as const;

/** What one request's metrics are made of. */
export interface RequestOutcome {
  status: number;
  durationMs: number;
  coldStart: boolean;
  /** Storage's counts for the request, each reported as a Count. */
  counts: Record<string, number>;
}

/**
 * The members a request's log line needs to be an EMF document: `_aws` naming the metrics and
 * dimensions, and each metric's value. The dimensions' own members (`service`, `function_name`)
 * are the line's, written by the logger and the handler.
 */
export function requestMetrics(outcome: RequestOutcome, timestamp = Date.now()) {
  const values: Record<string, number> = {
    Latency: outcome.durationMs,
    ClientErrors: outcome.status >= 400 && outcome.status < 500 ? 1 : 0,
    ServerErrors: outcome.status >= 500 ? 1 : 0,
    ColdStart: outcome.coldStart ? 1 : 0,
    ...outcome.counts,
  };
  const names = Object.keys(values);
  return {
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [[...METRIC_DIMENSIONS]],
          Metrics: names.map((name) => ({ Name: name, Unit: unitOf(name) })),
        },
      ],
    },
    ...values,
  };
}
