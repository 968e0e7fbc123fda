// The stage's CloudWatch dashboard, one page: the API's traffic and errors, latency per route,
// the list cache, cold starts and init, the functions' errors, throttles and concurrency, and
// the tables' consumed throughput against their ceilings. Read by serverless.yml as one more
// fragment of `resources`; docs/operating.md says what each widget shows.
const { readAlarmSettings } = require("./alarms.cjs");
const { FUNCTION_IDS, METRICS_NAMESPACE, ROUTES, SERVICE, apiName } = require("./names.cjs");

const FUNCTIONS = Object.keys(FUNCTION_IDS);
const TABLES = { PostsTable: "posts", IdempotencyTable: "Idempotency-Key" };
/** A resource's name (Ref) inside the body, which CloudFormation's Fn::Sub fills in. */
const ref = (id) => `\${${id}}`;
const REGION = "${AWS::Region}";

/** One of the service's own metrics for a function (lib/http/metrics.ts). */
const own = (metric, fn, options) => [
  METRICS_NAMESPACE,
  metric,
  "service",
  SERVICE,
  "function_name",
  ref(FUNCTION_IDS[fn]),
  options,
];
const lambda = (metric, fn, options) => [
  "AWS/Lambda",
  metric,
  "FunctionName",
  ref(FUNCTION_IDS[fn]),
  options,
];
/** One of API Gateway's metrics for the REST API's stage, kept by the API's name and the stage. */
const gateway = (metric, stage, options) => [
  "AWS/ApiGateway",
  metric,
  "ApiName",
  apiName(stage),
  "Stage",
  stage,
  options,
];
const dynamo = (metric, table, options) => [
  "AWS/DynamoDB",
  metric,
  "TableName",
  ref(table),
  options,
];

/** A graph of `metrics`, 12 columns by 6 rows. */
const graph = (title, metrics, extra = {}) => ({
  type: "metric",
  width: 12,
  height: 6,
  properties: { title, region: REGION, view: "timeSeries", period: 60, metrics, ...extra },
});

function widgets({ maxReadUnits, maxWriteUnits, capacityPercent }, stage) {
  const ceilingLines = [
    { label: "read ceiling", value: maxReadUnits },
    { label: "write ceiling", value: maxWriteUnits },
    { label: `${capacityPercent}% of read (alarm)`, value: (maxReadUnits * capacityPercent) / 100 },
    {
      label: `${capacityPercent}% of write (alarm)`,
      value: (maxWriteUnits * capacityPercent) / 100,
    },
  ];
  const logGroups = FUNCTIONS.map((fn) => `SOURCE '/aws/lambda/${ref(FUNCTION_IDS[fn])}'`);
  return [
    graph("API requests, 4xx and 5xx (a minute)", [
      gateway("Count", stage, { stat: "Sum", label: "requests" }),
      gateway("4XXError", stage, { stat: "Sum", label: "4xx" }),
      gateway("5XXError", stage, { stat: "Sum", label: "5xx" }),
    ]),
    graph(
      "Latency in the function per route, p50 and p99 (ms)",
      FUNCTIONS.flatMap((fn) => [
        own("Latency", fn, { stat: "p50", label: `${ROUTES[fn]} p50` }),
        own("Latency", fn, { stat: "p99", label: `${ROUTES[fn]} p99` }),
      ]),
      { period: 300 },
    ),
    graph(
      "Lists answered from memory (%), and lists by path",
      [
        [
          {
            expression: "100 * hits / (hits + patches + scans)",
            label: "from memory, %",
            id: "ratio",
          },
        ],
        own("ListFromMemory", "listPosts", { stat: "Sum", id: "hits", label: "from memory" }),
        own("ListPatched", "listPosts", { stat: "Sum", id: "patches", label: "patched" }),
        own("ListScanned", "listPosts", { stat: "Sum", id: "scans", label: "by Scan" }),
      ],
      { period: 300 },
    ),
    graph(
      "DynamoDB units per request, by route (average)",
      FUNCTIONS.flatMap((fn) => [
        own("ReadUnits", fn, { stat: "Average", label: `${ROUTES[fn]} read units` }),
        own("WriteUnits", fn, { stat: "Average", label: `${ROUTES[fn]} write units` }),
      ]),
      { period: 300 },
    ),
    graph(
      "Cold starts, and ids skipped and Idempotency-Key replays on create",
      [
        ...FUNCTIONS.map((fn) => own("ColdStart", fn, { stat: "Sum", label: `${fn} cold starts` })),
        own("IdsSkipped", "createPost", { stat: "Sum", label: "ids skipped" }),
        own("IdempotentReplays", "createPost", { stat: "Sum", label: "replays" }),
      ],
      { period: 300 },
    ),
    graph(
      "Lambda errors and throttles",
      FUNCTIONS.flatMap((fn) => [
        lambda("Errors", fn, { stat: "Sum", label: `${fn} errors` }),
        lambda("Throttles", fn, { stat: "Sum", label: `${fn} throttles` }),
      ]),
    ),
    graph(
      "Lambda concurrent executions",
      FUNCTIONS.map((fn) => lambda("ConcurrentExecutions", fn, { stat: "Maximum", label: fn })),
    ),
    {
      type: "log",
      width: 12,
      height: 6,
      properties: {
        title: "Init duration (ms), from Lambda's REPORT lines",
        region: REGION,
        view: "timeSeries",
        query:
          `${logGroups.join(" | ")} | filter type = "platform.report" and ` +
          "ispresent(record.metrics.initDurationMs) | stats avg(record.metrics.initDurationMs) as " +
          "avg_ms, max(record.metrics.initDurationMs) as max_ms, count(*) as inits by bin(5m)",
      },
    },
    ...Object.entries(TABLES).map(([table, name]) =>
      graph(
        `The ${name} table: consumed units a second, against its ceilings`,
        [
          [{ expression: "reads / PERIOD(reads)", label: "read units/s", id: "readRate" }],
          [{ expression: "writes / PERIOD(writes)", label: "write units/s", id: "writeRate" }],
          dynamo("ConsumedReadCapacityUnits", table, { stat: "Sum", id: "reads", visible: false }),
          dynamo("ConsumedWriteCapacityUnits", table, {
            stat: "Sum",
            id: "writes",
            visible: false,
          }),
        ],
        { annotations: { horizontal: ceilingLines } },
      ),
    ),
    graph(
      "DynamoDB throttled requests",
      Object.keys(TABLES).flatMap((table) => [
        dynamo("ReadThrottleEvents", table, { stat: "Sum", label: `${TABLES[table]} reads` }),
        dynamo("WriteThrottleEvents", table, { stat: "Sum", label: `${TABLES[table]} writes` }),
      ]),
    ),
  ];
}

/** The dashboard's resource and outputs for `stage`. */
function dashboardResources(stage, env = process.env) {
  const body = JSON.stringify({ widgets: widgets(readAlarmSettings(env), stage) });
  return {
    Resources: {
      Dashboard: {
        Type: "AWS::CloudWatch::Dashboard",
        Properties: {
          DashboardName: `${SERVICE}-${stage}`.replace(/[^A-Za-z0-9_-]/g, "-"),
          DashboardBody: { "Fn::Sub": body },
        },
      },
    },
    Outputs: {
      DashboardName: {
        Description: "The stage's CloudWatch dashboard",
        Value: { Ref: "Dashboard" },
      },
      DashboardUrl: {
        Description: "The dashboard in the CloudWatch console",
        Value: {
          "Fn::Sub":
            "https://${AWS::Region}.console.aws.amazon.com/cloudwatch/home?region=${AWS::Region}#dashboards:name=${Dashboard}",
        },
      },
    },
  };
}

module.exports = {
  dashboardResources,
  resources: async ({ resolveVariable }) => dashboardResources(await resolveVariable("sls:stage")),
};
