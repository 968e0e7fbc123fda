// The CloudWatch alarms this module adds with ALARM_TOPIC_ARN, as one more fragment of
// `resources`: the API's p99 latency, and each table's consumed throughput near its ceiling. With
// serverless.yml's three (the API's 5xx, the list function's errors, the posts table's throttles)
// they read 8 metrics; the events' dead-letter alarms (config/events.cjs) read one each, so a
// stage with webhooks reads 10, CloudWatch's free alarm metrics (docs/operating.md, Alarms).
// Every alarm here sits behind the HasAlarmTopic condition, decided when packaging.
const { positiveInteger } = require("./limits.cjs");
const { apiName } = require("./names.cjs");

const DEFAULTS = {
  LATENCY_ALARM_MS: 1000, // the API's p99 latency, every route together, over 5 minutes
  CAPACITY_ALARM_PERCENT: 80, // of a table's maximum read or write units a second
};

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

/** What every alarm shares: the topic, and quiet when there is no traffic. */
const notifying = (topic) => ({
  TreatMissingData: "notBreaching",
  AlarmActions: [topic],
  OKActions: [topic],
});

/**
 * p99 of the REST stage's Latency (AWS/ApiGateway, kept by the API's name and the stage) above the
 * setting in 2 of 3 five-minute periods: one metric for every route, where one alarm per route
 * would read five.
 */
function latencyAlarm(stage, settings) {
  return {
    Type: "AWS::CloudWatch::Alarm",
    Condition: "HasAlarmTopic",
    Properties: {
      AlarmDescription: `p99 latency of the API, every route, over ${settings.latencyMs} ms`,
      Namespace: "AWS/ApiGateway",
      MetricName: "Latency",
      Dimensions: [
        { Name: "ApiName", Value: apiName(stage) },
        { Name: "Stage", Value: stage },
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

/** A table's consumed units a minute (AWS/DynamoDB), for an alarm's metric math. */
const consumed = (tableId, id, metricName) => ({
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

/**
 * A table's consumed units a second as a percentage of its ceiling, the higher of the read and
 * the write share; `writesOnly` leaves the reads out (one metric, not two).
 */
function capacityAlarm(tableId, settings, { writesOnly = false } = {}) {
  // Sums over 60 s, so /60 is units a second.
  const reads = `reads / 60 / ${settings.maxReadUnits}`;
  const writes = `writes / 60 / ${settings.maxWriteUnits}`;
  return {
    Type: "AWS::CloudWatch::Alarm",
    Condition: "HasAlarmTopic",
    Properties: {
      AlarmDescription:
        `${tableId} consumed ${settings.capacityPercent}% or more of its ` +
        (writesOnly
          ? `write ceiling (${settings.maxWriteUnits} units a second)`
          : `read or write ceiling (${settings.maxReadUnits} read, ${settings.maxWriteUnits} write units a second)`),
      Metrics: [
        {
          Id: "percent",
          Label: writesOnly ? "share of the write ceiling, %" : "highest share of the ceiling, %",
          Expression: writesOnly ? `100 * ${writes}` : `100 * MAX([${reads}, ${writes}])`,
          ReturnData: true,
        },
        ...(writesOnly ? [] : [consumed(tableId, "reads", "ConsumedReadCapacityUnits")]),
        consumed(tableId, "writes", "ConsumedWriteCapacityUnits"),
      ],
      EvaluationPeriods: 5,
      DatapointsToAlarm: 3,
      Threshold: settings.capacityPercent,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
      ...notifying(settings.topic),
    },
  };
}

/** The alarms this module adds to the template for `stage` (behind HasAlarmTopic, like the others). */
function alarmResources(stage, env = process.env) {
  // Without a topic the condition is false and no alarm is made, as for serverless.yml's three.
  const settings = readAlarmSettings(env);
  return {
    Resources: {
      ApiLatencyAlarm: latencyAlarm(stage, settings),
      PostsTableCapacityAlarm: capacityAlarm("PostsTable", settings),
      // The service reads the Idempotency-Key table at most once per refused claim, an item whose
      // write units (1 per KB) that claim has paid, for 1 read unit per 4 KB: its reads reach the
      // read ceiling after its writes reach theirs while the read ceiling is at least the write one.
      IdempotencyTableCapacityAlarm: capacityAlarm("IdempotencyTable", settings, {
        writesOnly: true,
      }),
    },
  };
}

module.exports = {
  DEFAULTS,
  readAlarmSettings,
  alarmResources,
  resources: async ({ resolveVariable }) => alarmResources(await resolveVariable("sls:stage")),
};
