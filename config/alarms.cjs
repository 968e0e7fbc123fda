// The CloudWatch alarms, with ALARM_TOPIC_ARN: the per-function metrics of the function-errors
// alarm in serverless.yml, and the alarms this module adds as one more fragment of `resources`:
// p99 latency per route, and each table's consumed throughput near its ceiling. Every alarm sits
// behind the HasAlarmTopic condition, decided when packaging: none exists without a topic.
const { positiveInteger } = require("./limits.cjs");
const { FUNCTION_IDS, METRICS_NAMESPACE, ROUTES, SERVICE } = require("./names.cjs");

const DEFAULTS = {
  LATENCY_ALARM_MS: 1000, // a route's p99 latency in the function, over 5 minutes
  CAPACITY_ALARM_PERCENT: 80, // of a table's maximum read or write units a second
};
const FUNCTIONS = Object.values(FUNCTION_IDS).map((id) => id.replace(/LambdaFunction$/, ""));

/** One metric per function (not returned) plus their sum (the alarm's value). */
function perFunctionSum(metricName) {
  return [
    { Id: "total", Expression: "SUM(METRICS())", ReturnData: true },
    ...FUNCTIONS.map((name) => ({
      Id: name.charAt(0).toLowerCase() + name.slice(1),
      ReturnData: false,
      MetricStat: {
        Metric: {
          Namespace: "AWS/Lambda",
          MetricName: metricName,
          Dimensions: [{ Name: "FunctionName", Value: { Ref: `${name}LambdaFunction` } }],
        },
        Period: 60,
        Stat: "Sum",
      },
    })),
  ];
}

/** The alarms' settings: thresholds from the environment, or their defaults. */
function readAlarmSettings(env = process.env) {
  const withDefaults = { ...env };
  for (const [name, value] of Object.entries(DEFAULTS)) {
    if ((env[name] ?? "").trim() === "") withDefaults[name] = String(value);
  }
  const read = (name) => positiveInteger(name, withDefaults);
  const percent = read("CAPACITY_ALARM_PERCENT");
  if (percent > 100) {
    throw new Error(`CAPACITY_ALARM_PERCENT must be at most 100, not ${percent}`);
  }
  return {
    topic: (env.ALARM_TOPIC_ARN ?? "").trim(),
    latencyMs: read("LATENCY_ALARM_MS"),
    capacityPercent: percent,
    // The tables' ceilings (config/limits.cjs), which the capacity alarms compare against.
    maxReadUnits: positiveInteger("TABLE_MAX_READ_UNITS", env),
    maxWriteUnits: positiveInteger("TABLE_MAX_WRITE_UNITS", env),
  };
}

/** What every alarm shares: the condition, the topic, and quiet when there is no traffic. */
const notifying = (topic) => ({
  TreatMissingData: "notBreaching",
  AlarmActions: [topic],
  OKActions: [topic],
});

/** p99 of a route's Latency metric (lib/http/metrics.ts) above the setting, 2 of 3 five-minute periods. */
function latencyAlarm(fn, settings) {
  return {
    Type: "AWS::CloudWatch::Alarm",
    Condition: "HasAlarmTopic",
    Properties: {
      AlarmDescription: `p99 latency of ${ROUTES[fn]} over ${settings.latencyMs} ms`,
      Namespace: METRICS_NAMESPACE,
      MetricName: "Latency",
      Dimensions: [
        { Name: "service", Value: SERVICE },
        { Name: "function_name", Value: { Ref: FUNCTION_IDS[fn] } },
      ],
      ExtendedStatistic: "p99",
      Period: 300,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      Threshold: settings.latencyMs,
      ComparisonOperator: "GreaterThanThreshold",
      ...notifying(settings.topic),
    },
  };
}

/** A table's consumed units a second, as a percentage of its ceiling, whichever of read or write is higher. */
function capacityAlarm(tableId, settings) {
  const consumed = (id, metricName) => ({
    Id: id,
    ReturnData: false,
    MetricStat: {
      Metric: {
        Namespace: "AWS/DynamoDB",
        MetricName: metricName,
        Dimensions: [{ Name: "TableName", Value: { Ref: tableId } }],
      },
      Period: 60,
      Stat: "Sum",
    },
  });
  return {
    Type: "AWS::CloudWatch::Alarm",
    Condition: "HasAlarmTopic",
    Properties: {
      AlarmDescription:
        `${tableId} consumed ${settings.capacityPercent}% or more of its read or write ceiling ` +
        `(${settings.maxReadUnits} read, ${settings.maxWriteUnits} write units a second)`,
      Metrics: [
        {
          Id: "percent",
          Label: "highest share of the ceiling, %",
          // Sums over 60 s, so /60 is units a second.
          Expression: `100 * MAX([reads / 60 / ${settings.maxReadUnits}, writes / 60 / ${settings.maxWriteUnits}])`,
          ReturnData: true,
        },
        consumed("reads", "ConsumedReadCapacityUnits"),
        consumed("writes", "ConsumedWriteCapacityUnits"),
      ],
      EvaluationPeriods: 5,
      DatapointsToAlarm: 3,
      Threshold: settings.capacityPercent,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
      ...notifying(settings.topic),
    },
  };
}

/** The alarms this module adds to the template (behind HasAlarmTopic, like the others). */
function alarmResources(env = process.env) {
  // Without a topic the condition is false and no alarm is made, as for serverless.yml's three.
  const withTopic = readAlarmSettings(env);
  const resources = {};
  for (const fn of Object.keys(FUNCTION_IDS)) {
    const id = FUNCTION_IDS[fn].replace(/LambdaFunction$/, "");
    resources[`${id}LatencyAlarm`] = latencyAlarm(fn, withTopic);
  }
  for (const table of ["PostsTable", "IdempotencyTable"]) {
    resources[`${table}CapacityAlarm`] = capacityAlarm(table, withTopic);
  }
  return { Resources: resources };
}

module.exports = {
  DEFAULTS,
  readAlarmSettings,
  alarmResources,
  lambdaErrors: () => perFunctionSum("Errors"),
  resources: () => alarmResources(),
};
