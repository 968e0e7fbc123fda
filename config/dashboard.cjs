// The stage's CloudWatch dashboard, one page inside CloudWatch's free tier (3 dashboards of up to 50
// metrics each): 36 distinct metrics, 37 with webhooks, and no SEARCH expression. The stage as a
// whole comes from API Gateway's metrics, each function from AWS/Lambda's, the tables and queues
// from their own; the service's own metrics are only the list cache's three. What a request line
// holds beyond them (per route: errors, cold starts, units) comes from two Logs Insights widgets,
// which run, and are billed, only while someone has the page open. Read by serverless.yml as one
// more fragment of `resources`; docs/operating.md says what each widget shows.
const { readAlarmSettings } = require("./alarms.cjs");
const { readSubscribers } = require("./events.cjs");
const { FUNCTION_IDS, METRICS_NAMESPACE, ROUTES, SERVICE, apiName } = require("./names.cjs");

const FUNCTIONS = Object.keys(FUNCTION_IDS);
const TABLES = { PostsTable: "posts", IdempotencyTable: "Idempotency-Key" };
/** A resource's name (Ref) or attribute inside the body, which CloudFormation's Fn::Sub fills in. */
const ref = (id) => `\${${id}}`;
const REGION = "${AWS::Region}";

/** One of the service's own metrics for the list function (lib/http/metrics.ts). */
const listMetric = (metric, options) => [
  METRICS_NAMESPACE,
  metric,
  "service",
  SERVICE,
  "function_name",
  ref(FUNCTION_IDS.listPosts),
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

/** A Logs Insights query over the five functions' log groups. */
const logs = (title, view, query) => ({
  type: "log",
  width: 12,
  height: 6,
  properties: {
    title,
    region: REGION,
    view,
    query: [...FUNCTIONS.map((fn) => `SOURCE '/aws/lambda/${ref(FUNCTION_IDS[fn])}'`), query].join(
      " | ",
    ),
  },
});

/** The stage as API Gateway saw it: requests, 4xx, 5xx, and the latency the alarm watches. */
function apiWidgets(stage, { latencyMs }) {
  return [
    graph("API requests, 4xx and 5xx (a minute)", [
      gateway("Count", stage, { stat: "Sum", label: "requests" }),
      gateway("4XXError", stage, { stat: "Sum", label: "4xx" }),
      gateway("5XXError", stage, { stat: "Sum", label: "5xx" }),
    ]),
    graph(
      "API latency, every route, p50 and p99 (ms)",
      [
        gateway("Latency", stage, { stat: "p50", label: "p50" }),
        gateway("Latency", stage, { stat: "p99", label: "p99" }),
      ],
      { period: 300, annotations: { horizontal: [{ label: "alarm (p99)", value: latencyMs }] } },
    ),
  ];
}

/** Each function: its time, its requests' figures per route, errors, throttles, concurrency, inits. */
function functionWidgets() {
  return [
    graph(
      "Time in the function per route, p50 and p99 (ms)",
      FUNCTIONS.flatMap((fn) => [
        lambda("Duration", fn, { stat: "p50", label: `${ROUTES[fn]} p50` }),
        lambda("Duration", fn, { stat: "p99", label: `${ROUTES[fn]} p99` }),
      ]),
      { period: 300 },
    ),
    logs(
      "Per route, from the request lines: latency, errors, cold starts, DynamoDB units",
      "table",
      "filter ispresent(durationMs) and ispresent(route) | stats count(*) as requests, " +
        "pct(durationMs, 50) as p50_ms, pct(durationMs, 99) as p99_ms, " +
        "sum(ClientErrors) as client_errors, sum(ServerErrors) as server_errors, " +
        "sum(ColdStart) as cold_starts, avg(ReadUnits) as read_units, " +
        "avg(WriteUnits) as write_units, sum(IdsSkipped) as ids_skipped, " +
        "sum(IdempotentReplays) as replays by route | sort route",
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
    logs(
      "Init duration (ms) and inits, from Lambda's REPORT lines",
      "timeSeries",
      'filter type = "platform.report" and ispresent(record.metrics.initDurationMs) | ' +
        "stats avg(record.metrics.initDurationMs) as avg_ms, " +
        "max(record.metrics.initDurationMs) as max_ms, count(*) as inits by bin(5m)",
    ),
  ];
}

/** The list cache, and DynamoDB's units against each table's ceilings. */
function storageWidgets(stage, { maxReadUnits, maxWriteUnits, capacityPercent }) {
  const ceilingLines = [
    { label: "read ceiling", value: maxReadUnits },
    { label: "write ceiling", value: maxWriteUnits },
    { label: `${capacityPercent}% of read (alarm)`, value: (maxReadUnits * capacityPercent) / 100 },
    {
      label: `${capacityPercent}% of write (alarm)`,
      value: (maxWriteUnits * capacityPercent) / 100,
    },
  ];
  const consumed = (table, id, kind) =>
    dynamo(`Consumed${kind}CapacityUnits`, table, { stat: "Sum", id, visible: false });
  return [
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
        listMetric("ListFromMemory", { stat: "Sum", id: "hits", label: "from memory" }),
        listMetric("ListPatched", { stat: "Sum", id: "patches", label: "patched" }),
        listMetric("ListScanned", { stat: "Sum", id: "scans", label: "by Scan" }),
      ],
      { period: 300 },
    ),
    graph(
      "DynamoDB units per API request, both tables",
      [
        [{ expression: "(postReads + keyReads) / requests", label: "read units" }],
        [{ expression: "(postWrites + keyWrites) / requests", label: "write units" }],
        gateway("Count", stage, { stat: "Sum", id: "requests", visible: false }),
        consumed("PostsTable", "postReads", "Read"),
        consumed("PostsTable", "postWrites", "Write"),
        consumed("IdempotencyTable", "keyReads", "Read"),
        consumed("IdempotencyTable", "keyWrites", "Write"),
      ],
      { period: 300 },
    ),
    ...Object.entries(TABLES).map(([table, name]) =>
      graph(
        `The ${name} table: consumed units a second, against its ceilings`,
        [
          [{ expression: "reads / PERIOD(reads)", label: "read units/s", id: "readRate" }],
          [{ expression: "writes / PERIOD(writes)", label: "write units/s", id: "writeRate" }],
          consumed(table, "reads", "Read"),
          consumed(table, "writes", "Write"),
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

/** The events' dead-letter queues (config/events.cjs): the webhook queue's only with subscribers. */
function deadLetterWidget(withWebhooks) {
  const queues = {
    EventsDeadLetterQueue: "changes not published",
    ...(withWebhooks && { WebhookDeadLetterQueue: "webhooks not delivered" }),
  };
  return graph(
    "The events' dead letters (messages waiting)",
    Object.entries(queues).map(([queue, label]) => [
      "AWS/SQS",
      "ApproximateNumberOfMessagesVisible",
      "QueueName",
      ref(`${queue}.QueueName`),
      { stat: "Maximum", label },
    ]),
    { period: 300 },
  );
}

/** The dashboard's resource and outputs for `stage`. */
function dashboardResources(stage, env = process.env) {
  const settings = readAlarmSettings(env);
  const widgets = [
    ...apiWidgets(stage, settings),
    ...functionWidgets(),
    ...storageWidgets(stage, settings),
    deadLetterWidget(readSubscribers(env).length > 0),
  ];
  return {
    Resources: {
      Dashboard: {
        Type: "AWS::CloudWatch::Dashboard",
        Properties: {
          DashboardName: `${SERVICE}-${stage}`.replace(/[^A-Za-z0-9_-]/g, "-"),
          DashboardBody: { "Fn::Sub": JSON.stringify({ widgets }) },
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
