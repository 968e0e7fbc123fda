// Unit: the request line as an Embedded Metric Format document, the storage counts it carries,
// and the EMF check itself.
import { describe, expect, it, vi } from "vitest";
import { StorageError, ValidationError } from "../../../lib/posts/errors.js";
import { httpHandler } from "../../../lib/http/handler.js";
import { createLogger } from "../../../lib/http/logger.js";
import {
  CLOUDWATCH_METRICS,
  METRIC_DIMENSIONS,
  requestMetrics,
} from "../../../lib/http/metrics.js";
import { ok } from "../../../lib/http/response.js";
import { METRICS_NAMESPACE } from "../../../lib/shared/names.js";
import { STORAGE_COUNT_NAMES, type StorageCounts, addCount } from "../../../lib/storage/counts.js";
import { emfProblems } from "../../helpers/emf.js";
import { apiEvent } from "../../helpers/events.js";
import { linesWrittenBy } from "../../helpers/handlers.js";

/** A valid EMF document: one metric, one dimension. */
const valid = () => {
  const Metrics = [{ Name: "Latency", Unit: "Milliseconds" }];
  const directive = { Namespace: "N", Dimensions: [["service"]], Metrics };
  const _aws = { Timestamp: 1_700_000_000_000, CloudWatchMetrics: [directive] };
  return { service: "blog", Latency: 12.5, _aws };
};

/** The document with the value at `path` (dot-separated) replaced, or deleted when undefined. */
function validBut(path: string, value: unknown) {
  const doc = valid();
  const keys = path.split(".");
  const last = keys.pop()!;
  const parent = keys.reduce((node, key) => node[key] as never, doc as Record<string, unknown>);
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return doc;
}

describe("the EMF check", () => {
  it("passes a valid document, with an array of values too, and one that names no metric", () => {
    expect(emfProblems(valid())).toEqual([]);
    expect(emfProblems(validBut("Latency", [1, 2, 3]))).toEqual([]);
    expect(emfProblems({ _aws: { Timestamp: 1, CloudWatchMetrics: [] }, Latency: 1 })).toEqual([]);
  });

  const D = "_aws.CloudWatchMetrics.0"; // the one directive
  const names = (count: number) => Array.from({ length: count }, (_, i) => `m${i}`);
  const metrics = (count: number) => names(count).map((Name) => ({ Name, Unit: "Count" }));
  it.each([
    ["no _aws", "_aws", undefined, /must have required property '_aws'/],
    ["a Timestamp that is not an integer", "_aws.Timestamp", 1.5, /Timestamp must be integer/],
    ["a metric missing from the root", "Latency", undefined, /metric Latency: undefined is not/],
    ["a metric that is text", "Latency", "12", /metric Latency: "12" is not a number/],
    ["a dimension missing from the root", "service", undefined, /dimension service: undefined/],
    ["a dimension that is a number", "service", 3, /dimension service: 3 is not a string/],
    ["an unknown unit", `${D}.Metrics.0.Unit`, "Millis", /Unit must be equal to one of the/],
    ["31 dimensions in a set", `${D}.Dimensions`, [names(31)], /must NOT have more than 30 items/],
    ["101 metrics", `${D}.Metrics`, metrics(101), /must NOT have more than 100 items/],
    ["a name of 256 characters", `${D}.Metrics.0.Name`, "x".repeat(256), /more than 255 char/],
    ["a member the specification lacks", `${D}.Extra`, 1, /must NOT have additional properties/],
  ])("refuses %s", (_, path, value, problem) => {
    const problems = emfProblems(validBut(path, value));
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join("\n")).toMatch(problem);
  });
});

describe("requestMetrics", () => {
  const base = { status: 200, durationMs: 41.27, coldStart: false, counts: {} };

  it("names only the list's path as a metric, by service and function, and keeps every value", () => {
    const counts = { ListScanned: 1, ReadUnits: 8 };
    const metrics = requestMetrics({ ...base, coldStart: true, counts }, 1_700_000_000_123);
    const Metrics = [{ Name: "ListScanned", Unit: "Count" }];
    const directive = { Namespace: METRICS_NAMESPACE, Dimensions: [METRIC_DIMENSIONS], Metrics };
    expect(metrics).toEqual({
      _aws: { Timestamp: 1_700_000_000_123, CloudWatchMetrics: [directive] },
      ...{ Latency: 41.27, ClientErrors: 0, ServerErrors: 0, ColdStart: 1 },
      ...counts,
    });
    expect(METRIC_DIMENSIONS).toEqual(["service", "function_name"]);
  });

  it("names no metric on a line without a list's path, and keeps its values", () => {
    const counts = { WriteUnits: 4, IdsSkipped: 2, IdempotentReplays: 1 };
    expect(requestMetrics({ ...base, status: 500, counts }, 1)).toEqual({
      _aws: { Timestamp: 1, CloudWatchMetrics: [] },
      ...{ Latency: 41.27, ClientErrors: 0, ServerErrors: 1, ColdStart: 0 },
      ...counts,
    });
  });

  it.each([
    [[200, 304, 399], 0, 0],
    [[400, 499], 1, 0],
    [[500, 503], 0, 1],
  ])("counts statuses %j as %i client and %i server errors", (statuses, client, server) => {
    for (const status of statuses) {
      const counted = { ClientErrors: client, ServerErrors: server };
      expect(requestMetrics({ ...base, status }), String(status)).toMatchObject(counted);
    }
  });

  it("takes the time from the clock when none is given", () => {
    vi.spyOn(Date, "now").mockReturnValueOnce(1_800_000_000_000);
    expect(requestMetrics(base)._aws.Timestamp).toBe(1_800_000_000_000);
  });

  it("names as metrics only counts storage keeps", () => {
    for (const name of CLOUDWATCH_METRICS) expect(STORAGE_COUNT_NAMES).toContain(name);
  });
});

describe("the storage counts a request's metrics are made of (addCount)", () => {
  it("start at what they add, one by default, add to it after, and are kept only if asked", () => {
    const counts: StorageCounts = {};
    addCount(counts, "ListScanned");
    addCount(counts, "IdsSkipped", 3);
    addCount(counts, "IdsSkipped", 2);
    expect(counts).toEqual({ ListScanned: 1, IdsSkipped: 5 });
    expect(() => addCount(undefined, "ListFromMemory")).not.toThrow();
  });
});

describe("each request's log line", () => {
  const log = createLogger("info", "blog");
  it.each([
    ["a 200", async () => ok({})],
    ["a 400", async () => Promise.reject(new ValidationError("bad"))],
    ["a 500, the error line", async () => Promise.reject(new StorageError("Boom: down"))],
  ])("is valid EMF for %s, one line", async (_, step) => {
    const handler = httpHandler(step, log);
    const written = await linesWrittenBy(() => handler(apiEvent({ method: "GET" })));
    expect(written.map((line) => emfProblems(line))).toEqual([[]]);
  });

  it("carries the storage counts the step's repository added", async () => {
    const handler = httpHandler(async ({ scope }) => {
      scope.counts.ListFromMemory = 1;
      return ok([]);
    }, log);
    const [line] = await linesWrittenBy(() => handler(apiEvent({ method: "GET" })));
    expect(line).toMatchObject({ ListFromMemory: 1, ColdStart: 1, ClientErrors: 0 });
    const Metrics = [{ Name: "ListFromMemory" }];
    expect(line?._aws).toMatchObject({ CloudWatchMetrics: [{ Metrics }] });
    expect(emfProblems(line!)).toEqual([]);
  });
});
