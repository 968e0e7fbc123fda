// The spending limit on AWS (docs/operating.md, Spending limit): the API functions meter
// themselves into a monthly ledger item in the Idempotency-Key table (lib/spend/); this module
// adds the stage's guard (lib/app/stage-guard.ts), which reads that table's stream, filtered to
// ledger items, and throttles the stage to 0 at the pause; a schedule reconciles the throttle at
// each month's turn. None of it is billed at idle: Lambda's reads of a stream are free, and a
// schedule's first 14 million invocations a month are too. With SPEND_LIMIT_USD=off, none exists.
const { FUNCTION_IDS, SERVICE } = require("./names.cjs");
const { spendLimitSetting } = require("./settings.cjs");
const { readStageSettings } = require("./rest-stage.cjs");

const GUARD = "StageGuardLambdaFunction";
const isOn = (env = process.env) => spendLimitSetting(env) !== "off";

/** Only ledger items, whose keys start "spend " (no Idempotency-Key holds a space). */
const LEDGER_ONLY = {
  Filters: [
    { Pattern: JSON.stringify({ dynamodb: { Keys: { key: { S: [{ prefix: "spend " }] } } } }) },
  ],
};

const allow = (actions, resource) => ({ Effect: "Allow", Action: actions, Resource: resource });
const assumedBy = (service) => ({
  Version: "2012-10-17",
  Statement: [{ Effect: "Allow", Principal: { Service: service }, Action: "sts:AssumeRole" }],
});

/** The guard's role: its log group, the ledger's stream and item, the stage, the bus, the topic. */
function guardRole(stage, env) {
  const topic = (env.ALARM_TOPIC_ARN ?? "").trim();
  const stream = { "Fn::GetAtt": ["IdempotencyTable", "StreamArn"] };
  const statements = [
    allow(["logs:CreateLogStream", "logs:PutLogEvents"], {
      "Fn::Sub": `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:/aws/lambda/${SERVICE}-${stage}-stageGuard:*`,
    }),
    allow(
      [
        "dynamodb:DescribeStream",
        "dynamodb:GetRecords",
        "dynamodb:GetShardIterator",
        "dynamodb:ListStreams",
      ],
      stream,
    ),
    allow(["dynamodb:GetItem"], { "Fn::GetAtt": ["IdempotencyTable", "Arn"] }),
    allow(["apigateway:PATCH"], {
      "Fn::Sub": `arn:\${AWS::Partition}:apigateway:\${AWS::Region}::/restapis/\${ApiGatewayRestApi}/stages/${stage}`,
    }),
    allow(["events:PutEvents"], { "Fn::GetAtt": ["EventBus", "Arn"] }),
    ...(topic ? [allow(["sns:Publish"], topic)] : []),
  ];
  return {
    Type: "AWS::IAM::Role",
    Properties: {
      AssumeRolePolicyDocument: assumedBy("lambda.amazonaws.com"),
      Policies: [
        {
          PolicyName: "stage-guard",
          PolicyDocument: { Version: "2012-10-17", Statement: statements },
        },
      ],
    },
  };
}

/** The guard's resources and the ledger's table as an output, with the limit on. */
function spendResources(stage, env = process.env) {
  if (!isOn(env)) return { Resources: {}, Outputs: {} };
  const guardArn = { "Fn::GetAtt": [GUARD, "Arn"] };
  return {
    Resources: {
      StageGuardRole: guardRole(stage, env),
      // Each change of a ledger item, oldest first, a few at a time; a failing batch is retried
      // twice, then dropped: the next flush, or the month's reconcile, corrects the stage.
      LedgerStreamMapping: {
        Type: "AWS::Lambda::EventSourceMapping",
        Properties: {
          EventSourceArn: { "Fn::GetAtt": ["IdempotencyTable", "StreamArn"] },
          FunctionName: guardArn,
          StartingPosition: "LATEST",
          BatchSize: 10,
          MaximumRetryAttempts: 2,
          FilterCriteria: LEDGER_ONLY,
        },
      },
      MonthTurnSchedule: {
        Type: "AWS::Scheduler::Schedule",
        Properties: {
          ScheduleExpression: "cron(0 0 1 * ? *)",
          ScheduleExpressionTimezone: "UTC",
          FlexibleTimeWindow: { Mode: "OFF" },
          Target: {
            Arn: guardArn,
            RoleArn: { "Fn::GetAtt": ["MonthTurnRole", "Arn"] },
            Input: JSON.stringify({ action: "reconcile" }),
          },
        },
      },
      MonthTurnRole: {
        Type: "AWS::IAM::Role",
        Properties: {
          AssumeRolePolicyDocument: assumedBy("scheduler.amazonaws.com"),
          Policies: [
            {
              PolicyName: "month-turn",
              PolicyDocument: {
                Version: "2012-10-17",
                Statement: [allow(["lambda:InvokeFunction"], guardArn)],
              },
            },
          ],
        },
      },
    },
    Outputs: { SpendLedgerTableName: { Value: { Ref: "IdempotencyTable" } } },
  };
}

/** The guard's settings: the limit, the stage and its throttle, the bus, the topic, the ledger. */
function guardEnvironment(stage, env = process.env) {
  const { rateLimit, burstLimit } = readStageSettings(env);
  return {
    SPEND_LIMIT_USD: spendLimitSetting(env),
    REST_API_ID: { Ref: "ApiGatewayRestApi" },
    STAGE_NAME: stage,
    API_RATE_LIMIT: String(rateLimit),
    API_BURST_LIMIT: String(burstLimit),
    EVENT_BUS_NAME: { Ref: "EventBus" },
    ...((env.ALARM_TOPIC_ARN ?? "").trim() && { ALARM_TOPIC_ARN: env.ALARM_TOPIC_ARN.trim() }),
  };
}

/**
 * What each API function's role adds with the limit on: its meter's read at init and its flushes,
 * on the ledger's items alone (keys that start "spend "), never an Idempotency-Key's record.
 */
const LEDGER_GRANT = {
  Effect: "Allow",
  Action: ["dynamodb:GetItem", "dynamodb:UpdateItem"],
  Resource: { "Fn::GetAtt": ["IdempotencyTable", "Arn"] },
  Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["spend *"] } },
};

/** Adds the ledger's grant to the role of each API function of `template`. */
function grantLedger(template) {
  const resources = template.Resources ?? {};
  for (const id of Object.values(FUNCTION_IDS)) {
    const role = resources[id]?.Properties?.Role?.["Fn::GetAtt"]?.[0];
    const policy = resources[role]?.Properties?.Policies?.[0]?.PolicyDocument;
    if (policy) policy.Statement.push(LEDGER_GRANT);
  }
}

/**
 * A serverless plugin: with SPEND_LIMIT_USD=off the stage has no guard function; with it on, the
 * API functions' roles may read and add to the ledger.
 */
class StageGuard {
  constructor(serverless) {
    this.hooks = {
      initialize: () => {
        if (!isOn()) delete serverless.service.functions.stageGuard;
      },
      "after:aws:package:finalize:mergeCustomProviderResources": () => {
        if (isOn()) grantLedger(serverless.service.provider.compiledCloudFormationTemplate);
      },
    };
  }
}

module.exports = StageGuard;
Object.assign(module.exports, {
  LEDGER_GRANT,
  spendResources,
  guardEnvironment,
  resources: async ({ resolveVariable }) => spendResources(await resolveVariable("sls:stage")),
  environment: async ({ resolveVariable }) => guardEnvironment(await resolveVariable("sls:stage")),
});
