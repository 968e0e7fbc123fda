// Packaging tests: the stage's dashboard and alarms in the template, and what they cost at idle.
// Every metric the dashboard graphs is one the functions emit (lib/http/metrics.ts) or one AWS
// publishes for the resources it names; the dashboard stays inside CloudWatch's free tier (50
// distinct metrics, no SEARCH) and the alarms read at most its 10 metrics. Each check is first
// shown to refuse a small hand-made case.
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLOUDWATCH_METRICS, METRICS_NAMESPACE } from "../../lib/http/metrics.js";
import { type Resource, type Template, packageInto, templateEnv } from "../helpers/package.js";

const FUNCTION_IDS = [
  "ListPostsLambdaFunction",
  "GetPostLambdaFunction",
  "CreatePostLambdaFunction",
  "UpdatePostLambdaFunction",
  "DeletePostLambdaFunction",
];
const TABLE_IDS = ["PostsTable", "IdempotencyTable"];
const DEAD_LETTER_QUEUES = ["EventsDeadLetterQueue", "WebhookDeadLetterQueue"];
/** The `service` dimension the dashboard names (config/names.cjs). */
const SERVICE = "blog-post-api";
/** CloudWatch's free tier: metrics on one of an account's first three dashboards, alarm metrics. */
const FREE_DASHBOARD_METRICS = 50;
const FREE_ALARM_METRICS = 10;
/** What the dashboard keeps below the free tier's 50, so one more metric does not tip it over. */
const DASHBOARD_HEADROOM_LIMIT = 45;

/** The stage the tests package (tests/helpers/package.ts). */
const STAGE = "test";
const TOPIC = "arn:aws:sns:us-east-1:123456789012:ops";

/** `${Resource}` (or `${Resource.Attribute}`) as the body names it for Fn::Sub to fill in. */
const placeholder = (id: string) => `\${${id}}`;

/**
 * What AWS publishes, per namespace, for the resources the dashboard names: by one dimension whose
 * value is one of `values`, or by dimensions of fixed values (`named`).
 */
const PUBLISHED: Record<
  string,
  { metrics: string[]; dimension?: string; values?: string[]; named?: Record<string, string> }
> = {
  // A REST API's metrics are kept by its name and stage, not by its id.
  "AWS/ApiGateway": {
    metrics: ["Count", "4XXError", "5XXError", "Latency", "IntegrationLatency"],
    named: { ApiName: `blog-post-api-${STAGE}`, Stage: STAGE },
  },
  "AWS/Lambda": {
    metrics: ["Invocations", "Errors", "Throttles", "Duration", "ConcurrentExecutions"],
    dimension: "FunctionName",
    values: FUNCTION_IDS.map(placeholder),
  },
  "AWS/DynamoDB": {
    metrics: [
      "ConsumedReadCapacityUnits",
      "ConsumedWriteCapacityUnits",
      "ReadThrottleEvents",
      "WriteThrottleEvents",
    ],
    dimension: "TableName",
    values: TABLE_IDS.map(placeholder),
  },
  "AWS/SQS": {
    metrics: ["ApproximateNumberOfMessagesVisible"],
    dimension: "QueueName",
    values: DEAD_LETTER_QUEUES.map((queue) => placeholder(`${queue}.QueueName`)),
  },
};

type Row = (string | Record<string, unknown>)[];
interface Widget {
  type: string;
  properties: { title: string; metrics?: Row[]; query?: string; annotations?: unknown };
}

/** A metric row's namespace, name and dimension pairs, with its options left off. */
const metricOf = (row: Row) => row.filter((part): part is string => typeof part === "string");

/** Why a metric row names something nobody emits or publishes; undefined when it is fine. */
function rowProblem(row: Row): string | undefined {
  if (typeof row[0] !== "string") return undefined; // a math expression: checked by its ids
  const [namespace = "", metric = "", ...dims] = metricOf(row);
  const pairs = Object.fromEntries(
    dims.flatMap((_, i) => (i % 2 === 0 ? [[dims[i], dims[i + 1]]] : [])),
  ) as Record<string, string>;
  if (namespace === METRICS_NAMESPACE) {
    if (!(CLOUDWATCH_METRICS as readonly string[]).includes(metric))
      return `${namespace} ${metric}: the functions emit no such metric`;
    const fn = pairs.function_name ?? "";
    if (pairs.service !== SERVICE || !FUNCTION_IDS.map(placeholder).includes(fn)) {
      return `${namespace} ${metric}: dimensions ${JSON.stringify(pairs)} are not service and a function`;
    }
    return undefined;
  }
  const published = PUBLISHED[namespace];
  if (!published?.metrics.includes(metric))
    return `${namespace} ${metric}: AWS publishes no such metric here`;
  if (published.named) {
    const same = Object.entries(published.named).every(([name, value]) => pairs[name] === value);
    return same
      ? undefined
      : `${namespace} ${metric}: ${JSON.stringify(pairs)} names no stage of this stack`;
  }
  const value = pairs[published.dimension ?? ""];
  if (!(published.values ?? []).includes(value ?? "")) {
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

/** A dashboard resource's widgets, from its body (a string, or Fn::Sub's). */
function widgetsOf(resource: Resource): Widget[] {
  const body = resource.Properties.DashboardBody as string | { "Fn::Sub": string };
  return (JSON.parse(typeof body === "string" ? body : body["Fn::Sub"]) as { widgets: Widget[] })
    .widgets;
}

/**
 * The distinct metrics of a dashboard's widgets as CloudWatch counts them for its free tier: one
 * per namespace, name and dimensions, however many statistics show it; math expressions are none.
 */
function dashboardMetrics(widgets: Widget[]): Set<string> {
  return new Set(
    widgets.flatMap(({ properties }) =>
      (properties.metrics ?? [])
        .filter((row) => typeof row[0] === "string")
        .map((row) => JSON.stringify(metricOf(row))),
    ),
  );
}

/** What takes each dashboard of `template` past `limit` metrics, or uses SEARCH. */
function dashboardCostProblems(template: Template, limit = FREE_DASHBOARD_METRICS): string[] {
  const problems: string[] = [];
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== "AWS::CloudWatch::Dashboard") continue;
    const widgets = widgetsOf(resource);
    const count = dashboardMetrics(widgets).size;
    if (count > limit) problems.push(`${id}: ${count} metrics, more than ${limit}`);
    for (const { properties } of widgets) {
      for (const row of properties.metrics ?? []) {
        const expression = (row[0] as { expression?: string }).expression ?? "";
        if (/\bSEARCH\s*\(/i.test(expression)) {
          problems.push(`${id}: ${properties.title}: ${expression} is a SEARCH expression`);
        }
      }
    }
  }
  return problems;
}

/**
 * The metrics an alarm reads as CloudWatch bills them: one for an alarm on a MetricName, else one
 * for each MetricStat of its Metrics (a math expression reads none of its own).
 */
function alarmMetrics(resource: Resource): number {
  const metrics = resource.Properties.Metrics as { MetricStat?: unknown }[] | undefined;
  if (!metrics) return resource.Properties.MetricName ? 1 : 0;
  return metrics.filter((metric) => metric.MetricStat).length;
}

/** What takes the alarms of `template` past `limit` metrics, or makes one a Metrics Insights query. */
function alarmCostProblems(template: Template, limit = FREE_ALARM_METRICS): string[] {
  const alarms = Object.entries(template.Resources).filter(
    ([, resource]) => resource.Type === "AWS::CloudWatch::Alarm",
  );
  const problems: string[] = [];
  const count = alarms.reduce((sum, [, alarm]) => sum + alarmMetrics(alarm), 0);
  if (count > limit) problems.push(`${count} alarm metrics, more than ${limit}`);
  for (const [id, alarm] of alarms) {
    const metrics = (alarm.Properties.Metrics ?? []) as { Expression?: string }[];
    if (metrics.some((metric) => /^\s*SELECT\b/i.test(metric.Expression ?? ""))) {
      problems.push(`${id}: a Metrics Insights query`);
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
      ALARM_TOPIC_ARN: TOPIC,
      WEBHOOK_SUBSCRIBERS: "site=https://hooks.example.com/blog",
      LATENCY_ALARM_MS: "750",
      CAPACITY_ALARM_PERCENT: "70",
      TABLE_MAX_READ_UNITS: "400",
      TABLE_MAX_WRITE_UNITS: "40",
    }),
  );
  body = (template.Resources.Dashboard?.Properties.DashboardBody as { "Fn::Sub": string })[
    "Fn::Sub"
  ];
  widgets = widgetsOf(template.Resources.Dashboard!);
});

afterAll(async () => {
  for (const dir of folders) await rm(dir, { recursive: true, force: true });
});

/** A hand-made dashboard of `widgets`, and alarms, for the checks to refuse. */
const fixture = (resources: Record<string, Resource>): Template => ({ Resources: resources });
const dashboardOf = (fixtureWidgets: Widget[]): Resource => ({
  Type: "AWS::CloudWatch::Dashboard",
  Properties: { DashboardBody: JSON.stringify({ widgets: fixtureWidgets }) },
});
const lambdaErrors = (n: number, stat = "Sum"): Row => [
  "AWS/Lambda",
  "Errors",
  "FunctionName",
  `fn${n}`,
  { stat },
];
const singleMetricAlarm: Resource = {
  Type: "AWS::CloudWatch::Alarm",
  Properties: { Namespace: "AWS/Lambda", MetricName: "Errors", Statistic: "Sum" },
};
const metricMathAlarm = (stats: number): Resource => ({
  Type: "AWS::CloudWatch::Alarm",
  Properties: {
    Metrics: [
      { Id: "total", Expression: "SUM(METRICS())", ReturnData: true },
      ...Array.from({ length: stats }, (_, i) => ({
        Id: `m${i}`,
        MetricStat: { Metric: { MetricName: "Errors" } },
      })),
    ],
  },
});

describe("the cost checks", () => {
  it("count a metric shown with two statistics once, and math expressions not at all", () => {
    const fifty = Array.from({ length: 50 }, (_, n) => lambdaErrors(n));
    const page: Widget[] = [
      {
        type: "metric",
        properties: {
          title: "fifty",
          metrics: [...fifty, lambdaErrors(0, "p99"), [{ expression: "m1 + m2", id: "e" }]],
        },
      },
    ];
    expect(dashboardMetrics(page).size).toBe(50);
    expect(dashboardCostProblems(fixture({ Page: dashboardOf(page) }))).toEqual([]);
  });

  it("refuse a dashboard of 51 metrics, and one with SEARCH", () => {
    const busy: Widget = {
      type: "metric",
      properties: {
        title: "busy",
        metrics: [
          ...Array.from({ length: 51 }, (_, n) => lambdaErrors(n)),
          [{ expression: "SEARCH('{AWS/Lambda,FunctionName} Errors', 'Sum', 60)", id: "all" }],
        ],
      },
    };
    expect(dashboardCostProblems(fixture({ Page: dashboardOf([busy]) }))).toEqual([
      "Page: 51 metrics, more than 50",
      "Page: busy: SEARCH('{AWS/Lambda,FunctionName} Errors', 'Sum', 60) is a SEARCH expression",
    ]);
  });

  it("count an alarm's MetricName as one and its MetricStats each, and refuse 11 and SQL", () => {
    const ten = fixture({
      Errors: metricMathAlarm(5),
      ...Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`One${i}`, singleMetricAlarm])),
      Dashboard: dashboardOf([]),
    });
    expect(alarmCostProblems(ten)).toEqual([]);
    const eleven = fixture({ ...ten.Resources, Extra: singleMetricAlarm });
    expect(alarmCostProblems(eleven)).toEqual(["11 alarm metrics, more than 10"]);
    const sql: Resource = {
      Type: "AWS::CloudWatch::Alarm",
      Properties: {
        Metrics: [{ Id: "q", Expression: 'SELECT SUM(Errors) FROM "AWS/Lambda"', Period: 60 }],
      },
    };
    expect(alarmCostProblems(fixture({ Sql: sql }))).toEqual(["Sql: a Metrics Insights query"]);
  });
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

  it("graphs 37 distinct metrics with webhooks (36 without), no SEARCH, under the free tier's 50", () => {
    // docs/operating.md states these counts; 45 keeps room for a metric or five.
    expect(dashboardMetrics(widgets).size).toBe(37);
    expect(dashboardCostProblems(template, DASHBOARD_HEADROOM_LIMIT)).toEqual([]);
    const { dashboardResources } = createRequire(import.meta.url)("../../config/dashboard.cjs") as {
      dashboardResources(stage: string, env: NodeJS.ProcessEnv): Template;
    };
    const withoutWebhooks = dashboardResources(STAGE, templateEnv()).Resources.Dashboard!;
    expect(dashboardMetrics(widgetsOf(withoutWebhooks)).size).toBe(36);
  });

  it("reads the service dimension the functions write: their POWERTOOLS_SERVICE_NAME", () => {
    // serverless.yml's `service` names both; renamed there alone, the list cache's graph would go blank.
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

  it("fills in only this stack's resources, their attributes and its region", () => {
    const names = [...body.matchAll(/\$\{([^}]+)\}/g)].map((match) => match[1]!);
    for (const name of new Set(names)) {
      const [id = ""] = name.split(".");
      if (name !== "AWS::Region") expect(template.Resources, name).toHaveProperty([id]);
    }
  });

  it("graphs only metrics the functions emit or AWS publishes for these resources", () => {
    expect(dashboardProblems(widgets)).toEqual([]);
  });

  it("has the check refuse a metric nobody emits, a resource of no stack, and a dangling expression", () => {
    const list = placeholder(FUNCTION_IDS[0]!);
    const broken: Widget[] = [
      {
        type: "metric",
        properties: {
          title: "broken",
          metrics: [
            [METRICS_NAMESPACE, "ListHits", "service", SERVICE, "function_name", list, {}],
            // A value the line keeps as a field only.
            [METRICS_NAMESPACE, "Latency", "service", SERVICE, "function_name", list, {}],
            ["AWS/Lambda", "Errors", "FunctionName", "some-other-function", {}],
            ["AWS/Lambda", "InitDuration", "FunctionName", list, {}],
            ["AWS/ApiGateway", "5xx", "ApiName", `blog-post-api-${STAGE}`, "Stage", STAGE, {}],
            ["AWS/ApiGateway", "Count", "ApiName", "blog-post-api-prod", "Stage", STAGE, {}],
            [{ expression: "100 * hits / total", id: "ratio" }],
          ],
        },
      },
    ];
    expect(dashboardProblems(broken)).toEqual([
      "broken: BlogPostApi ListHits: the functions emit no such metric",
      "broken: BlogPostApi Latency: the functions emit no such metric",
      "broken: AWS/Lambda Errors: FunctionName some-other-function is none of this stack's resources",
      "broken: AWS/Lambda InitDuration: AWS publishes no such metric here",
      "broken: AWS/ApiGateway 5xx: AWS publishes no such metric here",
      `broken: AWS/ApiGateway Count: {"ApiName":"blog-post-api-prod","Stage":"${STAGE}"} names no stage of this stack`,
      "broken: 100 * hits / total names hits, which no metric is",
      "broken: 100 * hits / total names total, which no metric is",
    ]);
  });

  /** The widget whose title starts with `title`. */
  const widget = (title: string) => {
    const found = widgets.find((w) => w.properties.title.startsWith(title));
    expect(found, title).toBeDefined();
    return found!;
  };
  /** The metric rows of that widget. */
  const rowsOf = (title: string) =>
    (widget(title).properties.metrics ?? []).filter((row) => typeof row[0] === "string");
  const pick = (rows: Row[], metric: string) => rows.filter((row) => row[1] === metric);
  const statsOf = (rows: Row[]) => rows.map((row) => (row.at(-1) as { stat: string }).stat);

  it("shows the API's requests, 4xx, 5xx and latency against its alarm, and each route's time", () => {
    expect(rowsOf("API requests").map((row) => row[1])).toEqual(["Count", "4XXError", "5XXError"]);
    expect(statsOf(pick(rowsOf("API latency"), "Latency"))).toEqual(["p50", "p99"]);
    expect(widget("API latency").properties.annotations).toEqual({
      horizontal: [{ label: "alarm (p99)", value: 750 }],
    });
    const durations = rowsOf("Time in the function per route");
    for (const fn of FUNCTION_IDS) {
      const rows = pick(durations, "Duration").filter((row) => row[3] === placeholder(fn));
      expect(statsOf(rows), fn).toEqual(["p50", "p99"]);
    }
  });

  it("shows the list cache's share and paths, and per route what the request lines hold", () => {
    expect(widget("Lists answered from memory").properties.metrics?.[0]).toEqual([
      expect.objectContaining({ expression: "100 * hits / (hits + patches + scans)" }),
    ]);
    expect(rowsOf("Lists answered").map((row) => row[1])).toEqual([...CLOUDWATCH_METRICS]);
    const perRoute = widget("Per route").properties.query ?? "";
    for (const fn of FUNCTION_IDS)
      expect(perRoute).toContain(`SOURCE '/aws/lambda/${placeholder(fn)}'`);
    for (const field of ["durationMs", "ClientErrors", "ServerErrors", "ColdStart", "ReadUnits"]) {
      expect(perRoute, field).toContain(field);
    }
    expect(perRoute).toMatch(/by route/);
  });

  it("shows the functions' errors, throttles, concurrency and init duration", () => {
    expect(pick(rowsOf("Lambda errors"), "Errors")).toHaveLength(5);
    expect(pick(rowsOf("Lambda errors"), "Throttles")).toHaveLength(5);
    expect(pick(rowsOf("Lambda concurrent"), "ConcurrentExecutions")).toHaveLength(5);
    const init = widget("Init duration").properties.query ?? "";
    for (const fn of FUNCTION_IDS)
      expect(init).toContain(`SOURCE '/aws/lambda/${placeholder(fn)}'`);
    expect(init).toContain("record.metrics.initDurationMs");
  });

  it("shows each table's consumed units against its ceilings and per request, and throttles", () => {
    for (const table of ["posts", "Idempotency-Key"]) {
      expect(widget(`The ${table} table`).properties.annotations).toEqual({
        horizontal: [
          { label: "read ceiling", value: 400 },
          { label: "write ceiling", value: 40 },
          { label: "70% of read (alarm)", value: 280 },
          { label: "70% of write (alarm)", value: 28 },
        ],
      });
    }
    expect(rowsOf("DynamoDB units per API request").map((row) => row[1])).toEqual([
      "Count",
      "ConsumedReadCapacityUnits",
      "ConsumedWriteCapacityUnits",
      "ConsumedReadCapacityUnits",
      "ConsumedWriteCapacityUnits",
    ]);
    const throttles = rowsOf("DynamoDB throttled requests").map((row) => `${row[1]} ${row[3]}`);
    expect(throttles).toEqual([
      "ReadThrottleEvents ${PostsTable}",
      "WriteThrottleEvents ${PostsTable}",
      "ReadThrottleEvents ${IdempotencyTable}",
      "WriteThrottleEvents ${IdempotencyTable}",
    ]);
  });

  it("shows the messages waiting in the events' dead-letter queues", () => {
    expect(rowsOf("The events' dead letters").map((row) => row[3])).toEqual(
      DEAD_LETTER_QUEUES.map((queue) => placeholder(`${queue}.QueueName`)),
    );
  });
});

describe("the alarms", () => {
  const alarm = (id: string) => template.Resources[id];

  it("read 10 metrics with webhooks, the free tier's, and no Metrics Insights query", () => {
    const alarms = Object.entries(template.Resources).filter(
      ([, resource]) => resource.Type === "AWS::CloudWatch::Alarm",
    );
    const read = Object.fromEntries(alarms.map(([id, resource]) => [id, alarmMetrics(resource)]));
    // docs/operating.md states this table.
    expect(read).toEqual({
      ApiServerErrorsAlarm: 1,
      LambdaErrorsAlarm: 1,
      DynamoThrottlesAlarm: 2,
      ApiLatencyAlarm: 1,
      PostsTableCapacityAlarm: 2,
      IdempotencyTableCapacityAlarm: 1,
      EventsDeadLetterAlarm: 1,
      WebhookDeadLetterAlarm: 1,
    });
    expect(alarmCostProblems(template)).toEqual([]);
  });

  it("watch the API's p99 latency, every route, against LATENCY_ALARM_MS", () => {
    expect(alarm("ApiLatencyAlarm")?.Condition).toBeUndefined();
    expect(alarm("ApiLatencyAlarm")).toMatchObject({
      Properties: {
        Namespace: "AWS/ApiGateway",
        MetricName: "Latency",
        Dimensions: [
          { Name: "ApiName", Value: `blog-post-api-${STAGE}` },
          { Name: "Stage", Value: STAGE },
        ],
        ExtendedStatistic: "p99",
        Threshold: 750,
        ComparisonOperator: "GreaterThanThreshold",
        AlarmActions: [TOPIC],
      },
    });
  });

  it("watch the list function's errors, which the API's 5xx cannot count after a list's first byte", () => {
    expect(alarm("LambdaErrorsAlarm")?.Properties).toMatchObject({
      Namespace: "AWS/Lambda",
      MetricName: "Errors",
      Dimensions: [{ Name: "FunctionName", Value: { Ref: "ListPostsLambdaFunction" } }],
      AlarmActions: [TOPIC],
    });
  });

  it("watch each table's share of its ceiling against CAPACITY_ALARM_PERCENT", () => {
    const consumed = (table: string, kind: string) => ({
      Namespace: "AWS/DynamoDB",
      MetricName: `Consumed${kind}CapacityUnits`,
      Dimensions: [{ Name: "TableName", Value: { Ref: table } }],
    });
    const expected = {
      PostsTable: {
        expression: "100 * MAX([reads / 60 / 400, writes / 60 / 40])",
        metrics: [consumed("PostsTable", "Read"), consumed("PostsTable", "Write")],
      },
      // Its reads follow refused claims, whose writes reach their ceiling first.
      IdempotencyTable: {
        expression: "100 * writes / 60 / 40",
        metrics: [consumed("IdempotencyTable", "Write")],
      },
    };
    for (const [table, { expression, metrics }] of Object.entries(expected)) {
      const properties = alarm(`${table}CapacityAlarm`)?.Properties as {
        Metrics: { Expression?: string; MetricStat?: { Metric: unknown } }[];
        Threshold: number;
      };
      expect(properties.Threshold, table).toBe(70);
      expect(properties.Metrics[0]?.Expression, table).toBe(expression);
      expect(properties.Metrics.slice(1).map((m) => m.MetricStat?.Metric)).toEqual(metrics);
    }
  });
});
