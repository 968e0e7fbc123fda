// Packaging tests: the stage's dashboard and alarms graph only metrics the functions emit or AWS
// publishes for this stack (a check first shown to refuse a bad case), within the free tier.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { CLOUDWATCH_METRICS } from "../../lib/http/metrics.js";
import { METRICS_NAMESPACE } from "../../lib/shared/names.js";
import { dashboardMetrics } from "../../scripts/lib/cost.mjs";
import {
  API_FUNCTION_IDS,
  type Resource,
  type Template,
  ofType,
  SHARED_SETTINGS,
  packagedBeforeAll,
  templateEnv,
} from "../helpers/package.js";

const TABLE_IDS = ["PostsTable", "IdempotencyTable"];
const DEAD_LETTER_QUEUES = ["EventsDeadLetterQueue", "WebhookDeadLetterQueue"];
const SERVICE = "blog-post-api"; // the `service` dimension (config/names.cjs)
const STAGE = "test"; // the stage packagedBeforeAll packages
const TOPIC = SHARED_SETTINGS.alarmed.ALARM_TOPIC_ARN;

/** `${Resource}` (or `${Resource.Attribute}`) as the body names it for Fn::Sub to fill in. */
const placeholder = (id: string) => `\${${id}}`;

/** A metric as `namespace metric name=value…`, its dimensions in name order. */
const metricKey = (namespace: string, metric: string, dimensions: Record<string, string>) =>
  [
    namespace,
    metric,
    ...Object.entries(dimensions)
      .sort()
      .map((pair) => pair.join("=")),
  ].join(" ");
/** `metrics` by each of `dimensions`, as metricKey writes them. */
const each = (
  namespace: string,
  metrics: readonly string[],
  dimensions: Record<string, string>[],
) => dimensions.flatMap((dims) => metrics.map((metric) => metricKey(namespace, metric, dims)));
const FUNCTIONS = API_FUNCTION_IDS.map(placeholder);

/** Every metric the functions emit or AWS publishes for this stack's resources. */
const PUBLISHED = new Set([
  ...each(
    METRICS_NAMESPACE,
    CLOUDWATCH_METRICS,
    FUNCTIONS.map((fn) => ({ service: SERVICE, function_name: fn })),
  ),
  ...each(
    "AWS/Lambda",
    ["Invocations", "Errors", "Throttles", "Duration", "ConcurrentExecutions"],
    FUNCTIONS.map((fn) => ({ FunctionName: fn })),
  ),
  // A REST API's metrics are kept by its name and stage, not by its id.
  ...each(
    "AWS/ApiGateway",
    ["Count", "4XXError", "5XXError", "Latency", "IntegrationLatency"],
    [{ ApiName: `blog-post-api-${STAGE}`, Stage: STAGE }],
  ),
  ...each(
    "AWS/DynamoDB",
    ["Read", "Write"].flatMap((kind) => [`Consumed${kind}CapacityUnits`, `${kind}ThrottleEvents`]),
    TABLE_IDS.map((table) => ({ TableName: placeholder(table) })),
  ),
  ...each(
    "AWS/SQS",
    ["ApproximateNumberOfMessagesVisible"],
    DEAD_LETTER_QUEUES.map((queue) => ({ QueueName: placeholder(`${queue}.QueueName`) })),
  ),
]);

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
  const pairs = dims.flatMap((_, i) => (i % 2 === 0 ? [[dims[i], dims[i + 1]]] : []));
  const key = metricKey(namespace, metric, Object.fromEntries(pairs));
  return PUBLISHED.has(key) ? undefined : `${key}: nobody emits or publishes it`;
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

interface AlarmMetric {
  Namespace: string;
  MetricName: string;
  Dimensions?: { Name: string; Value: string | { Ref: string } | { "Fn::GetAtt": string[] } }[];
}

/** The metrics an alarm reads (as CloudWatch bills them), written as the dashboard's rows. */
function alarmRows(alarm: Resource): Row[] {
  const { Metrics } = alarm.Properties;
  const metrics: AlarmMetric[] = Metrics
    ? Metrics.flatMap(({ MetricStat }: { MetricStat?: { Metric: AlarmMetric } }) =>
        MetricStat ? [MetricStat.Metric] : [],
      )
    : [alarm.Properties];
  return metrics.map(({ Namespace, MetricName, Dimensions = [] }) => [
    Namespace,
    MetricName,
    ...Dimensions.flatMap(({ Name, Value }) => {
      if (typeof Value === "string") return [Name, Value];
      return [Name, placeholder("Ref" in Value ? Value.Ref : Value["Fn::GetAtt"].join("."))];
    }),
  ]);
}

const packages = packagedBeforeAll({ alarmed: SHARED_SETTINGS.alarmed });
const template = () => packages.alarmed.template;
const body = (): string => template().Resources.Dashboard?.Properties.DashboardBody["Fn::Sub"];
const widgets = () => (JSON.parse(body()) as { widgets: Widget[] }).widgets;

it("the check finds a metric nobody emits, a resource of no stack, and a dangling expression", () => {
  const list = placeholder(API_FUNCTION_IDS[0]!);
  const metrics: Row[] = [
    [METRICS_NAMESPACE, "ListHits", "service", SERVICE, "function_name", list, {}],
    // A value the line keeps as a field only.
    [METRICS_NAMESPACE, "Latency", "service", SERVICE, "function_name", list, {}],
    ["AWS/Lambda", "Errors", "FunctionName", "some-other-function", {}],
    ["AWS/Lambda", "InitDuration", "FunctionName", list, {}],
    ["AWS/ApiGateway", "5xx", "ApiName", `blog-post-api-${STAGE}`, "Stage", STAGE, {}],
    ["AWS/ApiGateway", "Count", "ApiName", "blog-post-api-prod", "Stage", STAGE, {}],
    [{ expression: "100 * hits / total", id: "ratio" }],
  ];
  const widget = { type: "metric", properties: { title: "broken", metrics } };
  const unknown = (metric: string) => `broken: ${metric}: nobody emits or publishes it`;
  const fn = `function_name=${list} service=${SERVICE}`;
  expect(dashboardProblems([widget])).toEqual([
    unknown(`BlogPostApi ListHits ${fn}`),
    unknown(`BlogPostApi Latency ${fn}`),
    unknown("AWS/Lambda Errors FunctionName=some-other-function"),
    unknown(`AWS/Lambda InitDuration FunctionName=${list}`),
    unknown(`AWS/ApiGateway 5xx ApiName=blog-post-api-${STAGE} Stage=${STAGE}`),
    unknown(`AWS/ApiGateway Count ApiName=blog-post-api-prod Stage=${STAGE}`),
    "broken: 100 * hits / total names hits, which no metric is",
    "broken: 100 * hits / total names total, which no metric is",
  ]);
});

describe("the dashboard", () => {
  it("is one per stage, named for it, with its name and console link as outputs", () => {
    expect(template().Resources.Dashboard).toMatchObject({
      Type: "AWS::CloudWatch::Dashboard",
      Properties: { DashboardName: "blog-post-api-test" },
    });
    expect(template().Outputs?.DashboardName?.Value).toEqual({ Ref: "Dashboard" });
    expect(JSON.stringify(template().Outputs?.DashboardUrl)).toContain(
      "console.aws.amazon.com/cloudwatch/home?region=${AWS::Region}#dashboards:name=${Dashboard}",
    );
  });

  it("graphs 37 distinct metrics with webhooks (36 without), no SEARCH, under the free tier's 50", () => {
    // As docs/operating.md states, and `npm run cost` counts them (it refuses SEARCH).
    expect(dashboardMetrics(template().Resources.Dashboard?.Properties.DashboardBody)).toEqual({
      count: 37,
    });
    const { dashboardResources } = createRequire(import.meta.url)("../../config/dashboard.cjs") as {
      dashboardResources(stage: string, env: NodeJS.ProcessEnv): Template;
    };
    const withoutWebhooks = dashboardResources(STAGE, templateEnv()).Resources.Dashboard;
    expect(dashboardMetrics(withoutWebhooks?.Properties.DashboardBody)).toEqual({ count: 36 });
  });

  it("graphs only metrics the functions emit or AWS publishes for these resources", () => {
    expect(dashboardProblems(widgets())).toEqual([]);
  });

  it("reads the service dimension the functions write: their POWERTOOLS_SERVICE_NAME", () => {
    // serverless.yml's `service` names both; renamed there alone, a graph would go blank.
    for (const fn of API_FUNCTION_IDS) {
      const { Variables } = template().Resources[fn]!.Properties.Environment;
      expect(Variables.POWERTOOLS_SERVICE_NAME, fn).toBe(SERVICE);
    }
    expect(body()).toContain(`"service","${SERVICE}"`);
  });

  it("fills in only this stack's resources, their attributes and its region", () => {
    const names = [...body().matchAll(/\$\{([^}]+)\}/g)].map((match) => match[1]!);
    for (const name of new Set(names)) {
      const [id = ""] = name.split(".");
      if (name !== "AWS::Region") expect(template().Resources, name).toHaveProperty([id]);
    }
  });

  /** The widget whose title starts with `title`. */
  const widget = (title: string) => {
    const found = widgets().find((w) => w.properties.title.startsWith(title));
    expect(found, title).toBeDefined();
    return found!.properties;
  };
  /** The metric rows of that widget, each as `metric last-dimension-value stat`. */
  const rowsOf = (title: string) =>
    (widget(title).metrics ?? [])
      .filter((row) => typeof row[0] === "string")
      .map(
        (row) =>
          `${metricOf(row)[1]} ${metricOf(row).at(-1)} ${(row.at(-1) as { stat: string }).stat}`,
      );
  const perFunction = (rows: (fn: string) => string[]) =>
    API_FUNCTION_IDS.flatMap((fn) => rows(placeholder(fn)));
  const perTable = (row: (table: string, kind: string) => string) =>
    TABLE_IDS.flatMap((table) => ["Read", "Write"].map((kind) => row(placeholder(table), kind)));

  // docs/operating.md describes each widget.
  it.each([
    ["API requests", ["Count test Sum", "4XXError test Sum", "5XXError test Sum"]],
    ["API latency", ["Latency test p50", "Latency test p99"]],
    [
      "Time in the function per route",
      perFunction((fn) => [`Duration ${fn} p50`, `Duration ${fn} p99`]),
    ],
    ["Lambda errors", perFunction((fn) => [`Errors ${fn} Sum`, `Throttles ${fn} Sum`])],
    ["Lambda concurrent", perFunction((fn) => [`ConcurrentExecutions ${fn} Maximum`])],
    [
      "Lists answered",
      CLOUDWATCH_METRICS.map((metric) => `${metric} ${placeholder(API_FUNCTION_IDS[0]!)} Sum`),
    ],
    [
      "DynamoDB units per API request",
      ["Count test Sum", ...perTable((table, kind) => `Consumed${kind}CapacityUnits ${table} Sum`)],
    ],
    ["DynamoDB throttled", perTable((table, kind) => `${kind}ThrottleEvents ${table} Sum`)],
    [
      "The events' dead letters",
      DEAD_LETTER_QUEUES.map(
        (queue) =>
          `ApproximateNumberOfMessagesVisible ${placeholder(`${queue}.QueueName`)} Maximum`,
      ),
    ],
  ])("graphs under %s: %j", (title, rows) => {
    expect(rowsOf(title)).toEqual(rows);
  });

  it("shows the list cache's share, and the request lines per route and the inits, from the logs", () => {
    expect(widget("Lists answered from memory").metrics?.[0]).toEqual([
      expect.objectContaining({ expression: "100 * hits / (hits + patches + scans)" }),
    ]);
    const [perRoute, init] = [widget("Per route").query ?? "", widget("Init duration").query ?? ""];
    for (const fn of API_FUNCTION_IDS) {
      for (const query of [perRoute, init])
        expect(query).toContain(`SOURCE '/aws/lambda/${placeholder(fn)}'`);
    }
    for (const field of ["durationMs", "ClientErrors", "ServerErrors", "ColdStart", "ReadUnits"]) {
      expect(perRoute, field).toContain(field);
    }
    expect(perRoute).toMatch(/by route/);
    expect(init).toContain("record.metrics.initDurationMs");
  });

  it("draws the alarms' thresholds and the tables' ceilings as the settings set them", () => {
    expect(widget("API latency").annotations).toEqual({
      horizontal: [{ label: "alarm (p99)", value: 750 }],
    });
    for (const table of ["posts", "Idempotency-Key"]) {
      expect(widget(`The ${table} table`).annotations).toEqual({
        horizontal: [
          { label: "read ceiling", value: 400 },
          { label: "write ceiling", value: 40 },
          { label: "70% of read (alarm)", value: 280 },
          { label: "70% of write (alarm)", value: 28 },
        ],
      });
    }
  });
});

describe("the alarms", () => {
  const alarms = () => ofType(template(), "AWS::CloudWatch::Alarm");
  const alarm = (id: string) => template().Resources[id] as Resource;

  // The free tier's 10, as docs/operating.md states; `npm run cost` prices them at $0.
  it("read 10 metrics with webhooks", () => {
    const read = Object.fromEntries(
      alarms().map(([id, resource]) => [id, alarmRows(resource).length]),
    );
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
  });

  it("watch only metrics AWS publishes for this stack's resources, and notify ALARM_TOPIC_ARN", () => {
    expect(template().Conditions?.HasAlarmTopic).toBeUndefined();
    for (const [id, resource] of alarms()) {
      expect(alarmRows(resource).map(rowProblem), id).toEqual(
        alarmRows(resource).map(() => undefined),
      );
      expect(resource.Condition, id).toBeUndefined();
      expect(resource.Properties.AlarmActions, id).toEqual([TOPIC]);
    }
  });

  it("watch the API's p99 latency against LATENCY_ALARM_MS, and the list function's errors", () => {
    // Errors of the list the API's 5xx cannot count after a list's first byte.
    expect(alarmRows(alarm("LambdaErrorsAlarm"))).toEqual([
      ["AWS/Lambda", "Errors", "FunctionName", placeholder("ListPostsLambdaFunction")],
    ]);
    expect(alarmRows(alarm("ApiLatencyAlarm"))).toEqual([
      ["AWS/ApiGateway", "Latency", "ApiName", `blog-post-api-${STAGE}`, "Stage", STAGE],
    ]);
    expect(alarm("ApiLatencyAlarm").Properties).toMatchObject({
      ExtendedStatistic: "p99",
      Threshold: 750,
      ComparisonOperator: "GreaterThanThreshold",
    });
  });

  it("watch each table's share of its ceiling against CAPACITY_ALARM_PERCENT", () => {
    const consumed = (table: string, kind: string) => [
      "AWS/DynamoDB",
      `Consumed${kind}CapacityUnits`,
      "TableName",
      placeholder(table),
    ];
    const expected = {
      PostsTable: ["100 * MAX([reads / 60 / 400, writes / 60 / 40])", "Read", "Write"],
      // Its reads follow refused claims, whose writes reach their ceiling first.
      IdempotencyTable: ["100 * writes / 60 / 40", "Write"],
    };
    for (const [table, [expression, ...kinds]] of Object.entries(expected)) {
      const capacity = alarm(`${table}CapacityAlarm`);
      const { Metrics, Threshold } = capacity.Properties;
      expect([Threshold, Metrics[0]?.Expression], table).toEqual([70, expression]);
      expect(alarmRows(capacity)).toEqual(kinds.map((kind) => consumed(table, kind!)));
    }
  });
});
