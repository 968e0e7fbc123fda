// Unit tests: the request line as an Embedded Metric Format document, and the EMF check itself.
import { describe, expect, it, vi } from "vitest";
import { StorageError, ValidationError } from "../../../lib/posts/errors.js";
import { httpHandler } from "../../../lib/http/handler.js";
import { createLogger } from "../../../lib/http/logger.js";
import {
  CLOUDWATCH_METRICS,
  METRICS_NAMESPACE,
  METRIC_DIMENSIONS,
  requestMetrics,
} from "../../../lib/http/metrics.js";
import { ok } from "../../../lib/http/response.js";
import { STORAGE_COUNT_NAMES } from "../../../lib/storage/counts.js";
import { emfProblems } from "../../helpers/emf.js";
import { apiEvent } from "../../helpers/events.js";
import { linesWrittenBy } from "../../helpers/handlers.js";

/** A valid EMF document: one metric, one dimension. */
const valid = () => ({
  service: "blog",
  Latency: 12.5,
  _aws: {
    Timestamp: 1_700_000_000_000,
    CloudWatchMetrics: [
      {
        Namespace: "N",
        Dimensions: [["service"]],
        Metrics: [{ Name: "Latency", Unit: "Milliseconds" }],
      },
    ],
  },
});

describe("the EMF check", () => {
  it("passes a valid document, with an array of values too, and one that names no metric", () => {
    expect(emfProblems(valid())).toEqual([]);
    expect(emfProblems({ ...valid(), Latency: [1, 2, 3] })).toEqual([]);
    expect(emfProblems({ _aws: { Timestamp: 1, CloudWatchMetrics: [] }, Latency: 1 })).toEqual([]);
  });

  const directive = (doc: ReturnType<typeof valid>) => doc._aws.CloudWatchMetrics[0]!;
  it.each([
    [
      "no _aws",
      (d: Record<string, unknown>) => delete d._aws,
      /must have required property '_aws'/,
    ],
    [
      "a Timestamp that is not an integer",
      (d: ReturnType<typeof valid>) => (d._aws.Timestamp = 1.5),
      /Timestamp must be integer/,
    ],
    [
      "a metric missing from the root",
      (d: Record<string, unknown>) => delete d.Latency,
      /metric Latency: undefined is not a number/,
    ],
    [
      "a metric that is text",
      (d: Record<string, unknown>) => (d.Latency = "12"),
      /metric Latency: "12" is not a number/,
    ],
    [
      "a dimension missing from the root",
      (d: Record<string, unknown>) => delete d.service,
      /dimension service: undefined is not a string/,
    ],
    [
      "a dimension that is a number",
      (d: Record<string, unknown>) => (d.service = 3),
      /dimension service: 3 is not a string/,
    ],
    [
      "a unit CloudWatch does not know",
      (d: ReturnType<typeof valid>) => (directive(d).Metrics[0]!.Unit = "Millis"),
      /Unit must be equal to one of the allowed values/,
    ],
    [
      "31 dimensions in a set",
      (d: ReturnType<typeof valid>) =>
        (directive(d).Dimensions = [Array.from({ length: 31 }, (_, i) => `d${i}`)]),
      /must NOT have more than 30 items/,
    ],
    [
      "101 metrics",
      (d: ReturnType<typeof valid>) =>
        (directive(d).Metrics = Array.from({ length: 101 }, (_, i) => ({
          Name: `m${i}`,
          Unit: "Count",
        }))),
      /must NOT have more than 100 items/,
    ],
    [
      "a name of 256 characters",
      (d: ReturnType<typeof valid>) => (directive(d).Metrics[0]!.Name = "x".repeat(256)),
      /must NOT have more than 255 characters/,
    ],
    [
      "a member the specification does not define",
      (d: ReturnType<typeof valid>) => Object.assign(directive(d), { Extra: 1 }),
      /must NOT have additional properties/,
    ],
  ] as [string, (d: never) => unknown, RegExp][])("refuses %s", (_, breakIt, problem) => {
    const doc = valid();
    breakIt(doc as never);
    const problems = emfProblems(doc);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join("\n")).toMatch(problem);
  });
});

describe("requestMetrics", () => {
  const base = { status: 200, durationMs: 41.27, coldStart: false, counts: {} };

  it("names only the list's path as a metric, by service and function, and keeps every value", () => {
    const metrics = requestMetrics(
      { ...base, coldStart: true, counts: { ListScanned: 1, ReadUnits: 8 } },
      1_700_000_000_123,
    );
    expect(metrics).toEqual({
      _aws: {
        Timestamp: 1_700_000_000_123,
        CloudWatchMetrics: [
          {
            Namespace: METRICS_NAMESPACE,
            Dimensions: [["service", "function_name"]],
            Metrics: [{ Name: "ListScanned", Unit: "Count" }],
          },
        ],
      },
      Latency: 41.27,
      ClientErrors: 0,
      ServerErrors: 0,
      ColdStart: 1,
      ListScanned: 1,
      ReadUnits: 8,
    });
    expect(METRIC_DIMENSIONS).toEqual(["service", "function_name"]);
  });

  it("names no metric on a line without a list's path, and keeps its values", () => {
    const counts = { WriteUnits: 4, IdsSkipped: 2, IdempotentReplays: 1 };
    expect(requestMetrics({ ...base, status: 500, counts }, 1)).toEqual({
      _aws: { Timestamp: 1, CloudWatchMetrics: [] },
      Latency: 41.27,
      ClientErrors: 0,
      ServerErrors: 1,
      ColdStart: 0,
      ...counts,
    });
  });

  it.each([
    [200, 0, 0],
    [304, 0, 0],
    [399, 0, 0],
    [400, 1, 0],
    [499, 1, 0],
    [500, 0, 1],
    [503, 0, 1],
  ])("counts status %i as %i client and %i server errors", (status, client, server) => {
    expect(requestMetrics({ ...base, status })).toMatchObject({
      ClientErrors: client,
      ServerErrors: server,
    });
  });

  it("takes the time from the clock when none is given", () => {
    vi.spyOn(Date, "now").mockReturnValueOnce(1_800_000_000_000);
    expect(requestMetrics(base)._aws.Timestamp).toBe(1_800_000_000_000);
  });

  it("names as metrics only counts storage keeps", () => {
    for (const name of CLOUDWATCH_METRICS) expect(STORAGE_COUNT_NAMES).toContain(name);
  });
});

describe("each request's log line", () => {
  it.each([
    ["a 200", async () => ok({})],
    ["a 400", async () => Promise.reject(new ValidationError("bad"))],
    [
      "a 500, written as the error line",
      async () => Promise.reject(new StorageError("Boom: down")),
    ],
  ])("is valid EMF for %s, one line", async (_, step) => {
    const handler = httpHandler(step, createLogger("info", "blog"));
    const written = await linesWrittenBy(() => handler(apiEvent({ method: "GET" })));
    expect(written).toHaveLength(1);
    expect(emfProblems(written[0]!)).toEqual([]);
  });

  it("carries the storage counts the step's repository added", async () => {
    const handler = httpHandler(
      async (request) => {
        request.scope.counts.ListFromMemory = 1;
        return ok([]);
      },
      createLogger("info", "blog"),
    );
    const [line] = await linesWrittenBy(() => handler(apiEvent({ method: "GET" })));
    expect(line).toMatchObject({ ListFromMemory: 1, ColdStart: 1, ClientErrors: 0 });
    expect(line?._aws).toMatchObject({
      CloudWatchMetrics: [{ Metrics: [{ Name: "ListFromMemory" }] }],
    });
    expect(emfProblems(line!)).toEqual([]);
  });
});
