// Metrics: each request's log line is also a CloudWatch Embedded Metric Format document, so
// CloudWatch Logs turns it into metrics with no call to CloudWatch and no library in the bundle.
// A custom metric is billed for every hour it is written in, so the line names as metrics only
// what no AWS metric shows and the dashboard graphs; its other values stay plain fields, which
// Logs Insights reads (docs/operating.md lists them, their dimensions and their cost).
import { METRICS_NAMESPACE } from "../shared/names.js";

/**
 * The line's values that become CloudWatch metrics, each a Count: how a list was answered
 * (storage's counts, lib/storage/counts.ts), for the list cache's share. They are on the list
 * function's lines only, so a stage has three series.
 */
export const CLOUDWATCH_METRICS = ["ListFromMemory", "ListPatched", "ListScanned"] as const;

/**
 * The dimensions a metric is kept by: the service and the function, whose name carries the stage,
 * so two stages in one account never mix.
 */
export const METRIC_DIMENSIONS = ["service", "function_name"] as const;

/** What one request's line is made of. */
export interface RequestOutcome {
  status: number;
  durationMs: number;
  coldStart: boolean;
  /** Storage's counts for the request, each a value of the line. */
  counts: Record<string, number>;
}

/** One metric directive of an EMF document. */
interface MetricDirective {
  Namespace: string;
  Dimensions: string[][];
  Metrics: { Name: string; Unit: "Count" }[];
}

/**
 * The members a request's log line carries for its metrics: the values (the time, 4xx, 5xx, cold
 * start and storage's counts) and `_aws`, which names those of them that are metrics. A line
 * with none of them has no directive, so CloudWatch extracts nothing from it. The dimensions' own
 * members (`service`, `function_name`) are the line's, written by the logger and the handler.
 */
export function requestMetrics(outcome: RequestOutcome, timestamp = Date.now()) {
  const values: Record<string, number> = {
    Latency: outcome.durationMs,
    ClientErrors: outcome.status >= 400 && outcome.status < 500 ? 1 : 0,
    ServerErrors: outcome.status >= 500 ? 1 : 0,
    ColdStart: outcome.coldStart ? 1 : 0,
    ...outcome.counts,
  };
  const named = CLOUDWATCH_METRICS.filter((name) => name in outcome.counts);
  const directives: MetricDirective[] =
    named.length === 0
      ? []
      : [
          {
            Namespace: METRICS_NAMESPACE,
            Dimensions: [[...METRIC_DIMENSIONS]],
            Metrics: named.map((name) => ({ Name: name, Unit: "Count" })),
          },
        ];
  return { _aws: { Timestamp: timestamp, CloudWatchMetrics: directives }, ...values };
}
