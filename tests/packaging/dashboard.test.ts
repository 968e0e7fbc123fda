// Packaging tests: the stage's dashboard and the latency and capacity alarms in the template. Every
// metric the dashboard graphs is one the functions emit (lib/http/metrics.ts) or one AWS publishes
// for the resources it names; the check of that is shown to refuse a metric nobody emits.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { METRICS_NAMESPACE, METRIC_UNITS } from "../../lib/http/metrics.js";
import { STORAGE_COUNT_NAMES } from "../../lib/storage/counts.js";
import { type Template, packageInto, templateEnv } from "../helpers/package.js";

const FUNCTION_IDS = [
  "ListPostsLambdaFunction",
  "GetPostLambdaFunction",
  "CreatePostLambdaFunction",
  "UpdatePostLambdaFunction",
  "DeletePostLambdaFunction",
];
const TABLE_IDS = ["PostsTable", "IdempotencyTable"];
/** The `service` dimension the dashboard and the alarms name (config/names.cjs). */
const SERVICE = "blog-post-api";

/** The stage the tests package (tests/helpers/package.ts). */
const STAGE = "test";

/**
 * What AWS publishes, per namespace, for the resources the dashboard names: by a dimension whose
 * value is one of the stack's resources, or by dimensions of fixed values (`named`).
 */
const PUBLISHED: Record<
  string,
  { metrics: string[]; dimension?: string; resources?: string[]; named?: Record<string, string> }
> = {
  // A REST API's metrics are kept by its name and stage, not by its id.
  "AWS/ApiGateway": {
    metrics: ["Count", "4XXError", "5XXError", "Latency", "IntegrationLatency", "CacheHitCount"],
    named: { ApiName: `blog-post-api-${STAGE}`, Stage: STAGE },
  },
  "AWS/Lambda": {
    metrics: ["Invocations", "Errors", "Throttles", "Duration", "ConcurrentExecutions"],
    dimension: "FunctionName",
    resources: FUNCTION_IDS,
  },
  "AWS/DynamoDB": {
    metrics: [
      "ConsumedReadCapacityUnits",
      "ConsumedWriteCapacityUnits",
      "ReadThrottleEvents",
      "WriteThrottleEvents",
      "ThrottledRequests",
    ],
    dimension: "TableName",
    resources: TABLE_IDS,
  },
};

type Row = (string | Record<string, unknown>)[];
interface Widget {
  type: string;
  properties: { title: string; metrics?: Row[]; query?: string; annotations?: unknown };
}

/** `${Resource}` as the body names a resource for Fn::Sub to fill in. */
const placeholder = (id: string) => `\${${id}}`;

/** Why a metric row names something nobody emits or publishes; undefined when it is fine. */
function rowProblem(row: Row): string | undefined {
  if (typeof row[0] !== "string") return undefined; // a math expression: checked by its ids
  const [namespace, metric, ...rest] = row as string[];
  const dims = rest.filter((part) => typeof part === "string");
  const pairs = Object.fromEntries(
    dims.flatMap((_, i) => (i % 2 === 0 ? [[dims[i], dims[i + 1]]] : [])),
  ) as Record<string, string>;
  if (namespace === METRICS_NAMESPACE) {
    if (!(metric! in METRIC_UNITS) && !(STORAGE_COUNT_NAMES as readonly string[]).includes(metric!))
      return `${namespace} ${metric}: the functions emit no such metric`;
    const fn = pairs.function_name;
    if (pairs.service !== SERVICE || !FUNCTION_IDS.map(placeholder).includes(fn ?? "")) {
      return `${namespace} ${metric}: dimensions ${JSON.stringify(pairs)} are not service and a function`;
    }
    return undefined;
  }
  const published = PUBLISHED[namespace!];
  if (!published?.metrics.includes(metric!))
    return `${namespace} ${metric}: AWS publishes no such metric here`;
  if (published.named) {
    const same = Object.entries(published.named).every(([name, value]) => pairs[name] === value);
    return same
      ? undefined
      : `${namespace} ${metric}: ${JSON.stringify(pairs)} names no stage of this stack`;
  }
  const value = pairs[published.dimension ?? ""];
  if (!(published.resources ?? []).map(placeholder).includes(value ?? "")) {
    return `${namespace} ${metric}: ${published.dimension} ${value} is none of this stack's resources`;
  }
  return undefined;
}

/** Every problem of a dashboard's widgets: unknown metrics, and expressions over undefined ids. */
function dashboardProblems(widgets: Widget[]): string[] {
  const problems: string[] = [];
  for (const { properties } of widgets) {
    const rows = properties.metrics ?? [];
    const ids = new Set(rows.map((row) => (row.at(-1) as { id?: string }).id).filter(Boolean));
    for (const row of rows) {
      const problem = rowProblem(row);
      if (problem) problems.push(`${properties.title}: ${problem}`);
      const expression = (row[0] as { expression?: string }).expression;
      for (const name of expression?.match(/\b[a-z]\w*\b/g) ?? []) {
        if (name !== "PERIOD" && !ids.has(name)) {
          problems.push(`${properties.title}: ${expression} names ${name}, which no metric is`);
        }
      }
    }
  }
  return problems;
}

const folders: string[] = [];
let template: Template;
let widgets: Widget[];
let body = "";

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), "blog-post-dashboard-"));
  folders.push(dir);
  template = await packageInto(
    dir,
    templateEnv({
      ALARM_TOPIC_ARN: "arn:aws:sns:us-east-1:123456789012:ops",
      LATENCY_ALARM_MS: "750",
      CAPACITY_ALARM_PERCENT: "70",
      TABLE_MAX_READ_UNITS: "400",
      TABLE_MAX_WRITE_UNITS: "40",
    }),
  );
  body = (template.Resources.Dashboard?.Properties.DashboardBody as { "Fn::Sub": string })[
    "Fn::Sub"
  ];
  widgets = (JSON.parse(body) as { widgets: Widget[] }).widgets;
});

afterAll(async () => {
  for (const dir of folders) await rm(dir, { recursive: true, force: true });
});

describe("the dashboard", () => {
  it("is one per stage, named for it, with its name and console link as outputs", () => {
    expect(template.Resources.Dashboard).toMatchObject({
      Type: "AWS::CloudWatch::Dashboard",
      Properties: { DashboardName: "blog-post-api-test" },
    });
    expect(template.Outputs?.DashboardName).toEqual(
      expect.objectContaining({ Value: { Ref: "Dashboard" } }),
    );
    expect(JSON.stringify(template.Outputs?.DashboardUrl)).toContain(
      "console.aws.amazon.com/cloudwatch/home?region=${AWS::Region}#dashboards:name=${Dashboard}",
    );
  });

  it("reads the service dimension the functions write: their POWERTOOLS_SERVICE_NAME", () => {
    // serverless.yml's `service` names both; renamed there alone, every graph and alarm would go blank.
    for (const fn of FUNCTION_IDS) {
      const variables = (
        template.Resources[fn]?.Properties as {
          Environment: { Variables: Record<string, unknown> };
        }
      ).Environment.Variables;
      expect(variables.POWERTOOLS_SERVICE_NAME, fn).toBe(SERVICE);
    }
    expect(body).toContain(`"service","${SERVICE}"`);
  });

  it("fills in only this stack's resources and its region", () => {
    const names = [...body.matchAll(/\$\{([^}]+)\}/g)].map((match) => match[1]!);
    for (const name of new Set(names)) {
      if (name !== "AWS::Region") expect(template.Resources, name).toHaveProperty(name);
    }
  });

  it("graphs only metrics the functions emit or AWS publishes for these resources", () => {
    expect(dashboardProblems(widgets)).toEqual([]);
  });

  it("has the check refuse a metric nobody emits, a resource of no stack, and a dangling expression", () => {
    const broken: Widget[] = [
      {
        type: "metric",
        properties: {
          title: "broken",
          metrics: [
            [
              METRICS_NAMESPACE,
              "ListHits",
              "service",
              "blog-post-api",
              "function_name",
              placeholder(FUNCTION_IDS[0]!),
              {},
            ],
            ["AWS/Lambda", "Errors", "FunctionName", "some-other-function", {}],
            ["AWS/Lambda", "InitDuration", "FunctionName", placeholder(FUNCTION_IDS[0]!), {}],
            ["AWS/ApiGateway", "5xx", "ApiName", `blog-post-api-${STAGE}`, "Stage", STAGE, {}],
            ["AWS/ApiGateway", "Count", "ApiName", "blog-post-api-prod", "Stage", STAGE, {}],
            [{ expression: "100 * hits / total", id: "ratio" }],
          ],
        },
      },
    ];
    expect(dashboardProblems(broken)).toEqual([
      "broken: BlogPostApi ListHits: the functions emit no such metric",
      "broken: AWS/Lambda Errors: FunctionName some-other-function is none of this stack's resources",
      "broken: AWS/Lambda InitDuration: AWS publishes no such metric here",
      "broken: AWS/ApiGateway 5xx: AWS publishes no such metric here",
      `broken: AWS/ApiGateway Count: {"ApiName":"blog-post-api-prod","Stage":"${STAGE}"} names no stage of this stack`,
      "broken: 100 * hits / total names hits, which no metric is",
      "broken: 100 * hits / total names total, which no metric is",
    ]);
  });

  /** The metric rows of the widget whose title starts with `title`. */
  const rowsOf = (title: string) => {
    const widget = widgets.find((w) => w.properties.title.startsWith(title));
    expect(widget, title).toBeDefined();
    return (widget?.properties.metrics ?? []).filter((row) => typeof row[0] === "string");
  };
  const pick = (rows: Row[], metric: string) => rows.filter((row) => row[1] === metric);

  it("shows requests, 4xx and 5xx, p50 and p99 per route, the list's paths and each route's units", () => {
    expect(rowsOf("API requests").map((row) => row[1])).toEqual(["Count", "4XXError", "5XXError"]);
    const latency = rowsOf("Latency in the function per route");
    for (const fn of FUNCTION_IDS) {
      const stats = latency
        .filter((row) => row[5] === placeholder(fn))
        .map((row) => (row.at(-1) as { stat: string }).stat);
      expect(stats, fn).toEqual(["p50", "p99"]);
    }
    const lists = widgets.find((w) => w.properties.title.startsWith("Lists answered from memory"));
    expect(lists?.properties.metrics?.[0]).toEqual([
      expect.objectContaining({ expression: "100 * hits / (hits + patches + scans)" }),
    ]);
    expect(pick(rowsOf("Lists answered"), "ListFromMemory")).toHaveLength(1);
    expect(pick(rowsOf("Lists answered"), "ListPatched")).toHaveLength(1);
    expect(pick(rowsOf("Lists answered"), "ListScanned")).toHaveLength(1);
    const units = rowsOf("DynamoDB units per request");
    expect(pick(units, "ReadUnits")).toHaveLength(5);
    expect(pick(units, "WriteUnits")).toHaveLength(5);
  });

  it("shows cold starts, the functions' errors, throttles, concurrency and init duration", () => {
    expect(pick(rowsOf("Cold starts"), "ColdStart")).toHaveLength(5);
    expect(pick(rowsOf("Lambda errors"), "Errors")).toHaveLength(5);
    expect(pick(rowsOf("Lambda errors"), "Throttles")).toHaveLength(5);
    expect(pick(rowsOf("Lambda concurrent"), "ConcurrentExecutions")).toHaveLength(5);
    const init = widgets.find((w) => w.type === "log");
    for (const fn of FUNCTION_IDS) {
      expect(init?.properties.query).toContain(`SOURCE '/aws/lambda/${placeholder(fn)}'`);
    }
    expect(init?.properties.query).toContain("record.metrics.initDurationMs");
  });

  it("shows each table's consumed units against its ceilings, and throttled requests", () => {
    for (const table of ["posts", "Idempotency-Key"]) {
      const widget = widgets.find((w) => w.properties.title.startsWith(`The ${table} table`));
      expect(widget?.properties.annotations).toEqual({
        horizontal: [
          { label: "read ceiling", value: 400 },
          { label: "write ceiling", value: 40 },
          { label: "70% of read (alarm)", value: 280 },
          { label: "70% of write (alarm)", value: 28 },
        ],
      });
    }
    const throttles = rowsOf("DynamoDB throttled requests").map((row) => `${row[1]} ${row[3]}`);
    expect(throttles).toEqual([
      "ReadThrottleEvents ${PostsTable}",
      "WriteThrottleEvents ${PostsTable}",
      "ReadThrottleEvents ${IdempotencyTable}",
      "WriteThrottleEvents ${IdempotencyTable}",
    ]);
  });
});

describe("the latency and capacity alarms", () => {
  const alarm = (id: string) => template.Resources[id];

  it("watch each route's p99 latency against LATENCY_ALARM_MS", () => {
    for (const fn of FUNCTION_IDS) {
      const id = fn.replace(/LambdaFunction$/, "LatencyAlarm");
      expect(alarm(id)?.Condition, id).toBeUndefined();
      expect(alarm(id), id).toMatchObject({
        Properties: {
          Namespace: METRICS_NAMESPACE,
          MetricName: "Latency",
          Dimensions: [
            { Name: "service", Value: SERVICE },
            { Name: "function_name", Value: { Ref: fn } },
          ],
          ExtendedStatistic: "p99",
          Threshold: 750,
          ComparisonOperator: "GreaterThanThreshold",
          AlarmActions: ["arn:aws:sns:us-east-1:123456789012:ops"],
        },
      });
    }
  });

  it("watch each table's busier of reads and writes against CAPACITY_ALARM_PERCENT of its ceiling", () => {
    for (const table of TABLE_IDS) {
      const properties = alarm(`${table}CapacityAlarm`)?.Properties as {
        Metrics: {
          Expression?: string;
          MetricStat?: { Metric: { MetricName: string; Dimensions: unknown } };
        }[];
        Threshold: number;
      };
      expect(properties.Threshold).toBe(70);
      expect(properties.Metrics[0]?.Expression).toBe(
        "100 * MAX([reads / 60 / 400, writes / 60 / 40])",
      );
      expect(properties.Metrics.slice(1).map((m) => m.MetricStat?.Metric)).toEqual([
        {
          Namespace: "AWS/DynamoDB",
          MetricName: "ConsumedReadCapacityUnits",
          Dimensions: [{ Name: "TableName", Value: { Ref: table } }],
        },
        {
          Namespace: "AWS/DynamoDB",
          MetricName: "ConsumedWriteCapacityUnits",
          Dimensions: [{ Name: "TableName", Value: { Ref: table } }],
        },
      ]);
    }
  });
});
