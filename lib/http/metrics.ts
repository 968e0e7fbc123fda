// Metrics: each request's log line is also a CloudWatch Embedded Metric Format document, so
// CloudWatch Logs turns it into metrics with no call to CloudWatch and no library in the bundle
// (docs/operating.md lists them, their dimensions and their cost).
import type { StorageCounts } from "../posts/repository.js";

/** The CloudWatch namespace of the service's own metrics. */
export const METRICS_NAMESPACE = "BlogPostApi";

/**
 * Every metric a request line can carry, with its unit. The storage counts appear only on the
 * lines of the requests whose storage path took them (ReadUnits and WriteUnits on any request
 * that reached DynamoDB).
 */
export const METRIC_UNITS = {
  /** The request's time in the function, as `durationMs`. */
  Latency: "Milliseconds",
  /** 1 when the answer was 4xx, else 0; likewise 5xx. */
  ClientErrors: "Count",
  ServerErrors: "Count",
  /** 1 on the first request of an instance (not provisioned concurrency), else 0. */
  ColdStart: "Count",
  ListFromMemory: "Count",
  ListPatched: "Count",
  ListScanned: "Count",
  /** DynamoDB capacity units the request consumed, every call summed (on every route's line). */
  ReadUnits: "Count",
  WriteUnits: "Count",
  IdsSkipped: "Count",
  IdempotentReplays: "Count",
} as const;

export type MetricName = keyof typeof METRIC_UNITS;

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
  counts: StorageCounts;
}

/**
 * The members a request's log line needs to be an EMF document: `_aws` naming the metrics and
 * dimensions, and each metric's value. The dimensions' own members (`service`, `function_name`)
 * are the line's, written by the logger and the handler.
 */
export function requestMetrics(outcome: RequestOutcome, timestamp = Date.now()) {
  const values: Partial<Record<MetricName, number>> = {
    Latency: outcome.durationMs,
    ClientErrors: outcome.status >= 400 && outcome.status < 500 ? 1 : 0,
    ServerErrors: outcome.status >= 500 ? 1 : 0,
    ColdStart: outcome.coldStart ? 1 : 0,
    ...outcome.counts,
  };
  const names = Object.keys(values) as MetricName[];
  return {
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [[...METRIC_DIMENSIONS]],
          Metrics: names.map((name) => ({ Name: name, Unit: METRIC_UNITS[name] })),
        },
      ],
    },
    ...values,
  };
}
