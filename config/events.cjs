// Post events on AWS (docs/events.md): the posts table's stream read by one Lambda event source
// mapping into the publishEvents function, which maps each change of a post and puts it on the
// stage's EventBridge bus and, with WEBHOOK_SUBSCRIBERS, on an SQS FIFO queue (one message group
// per post) that the delivery function reads. Each path has a dead-letter queue and an alarm on
// it. No secret is in the template: each subscriber's lives in SSM Parameter Store under
// /<service>/<stage>/webhooks/<name>.
const { isIP } = require("node:net");
// The delivery function's own address check, so both refuse the same addresses.
const { isAllowedAddress } = require("../lib/events/address.ts");
// Tries before a delivery is dead-lettered: the retry schedule's, the delivery function's own.
const { DELIVERY_ATTEMPTS } = require("../lib/events/retry-schedule.ts");
const { SERVICE } = require("./names.cjs");

/**
 * WEBHOOK_SUBSCRIBERS: `name=https://url` pairs, comma-separated. Refused here, before anything
 * is packaged: a URL that is not https, carries credentials, or names localhost or an address
 * that is not public (lib/events/address.ts; the delivery function checks resolved addresses
 * with it again).
 */
function readSubscribers(env = process.env) {
  const raw = (env.WEBHOOK_SUBSCRIBERS ?? "").trim();
  if (raw === "") return [];
  return raw.split(",").map((pair) => {
    const match = /^\s*([A-Za-z0-9_-]{1,64})=(\S+)\s*$/.exec(pair);
    if (!match) {
      throw new Error(
        `WEBHOOK_SUBSCRIBERS takes name=https://url pairs, not ${JSON.stringify(pair)}`,
      );
    }
    const [, name, url] = match;
    let parsed;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`WEBHOOK_SUBSCRIBERS: ${url} is not a URL`);
    }
    const host = parsed.hostname.replace(/^\[|\]$/g, "");
    const refusal =
      parsed.protocol !== "https:"
        ? "is not https"
        : parsed.username || parsed.password
          ? "carries credentials"
          : host === "localhost" ||
              host.endsWith(".localhost") ||
              (isIP(host) !== 0 && !isAllowedAddress(host))
            ? "names an address that is not public"
            : undefined;
    if (refusal) throw new Error(`WEBHOOK_SUBSCRIBERS: ${url} ${refusal}`);
    return { name, url };
  });
}

const secretParameter = (stage, name) => `/${SERVICE}/${stage}/webhooks/${name}`;

/**
 * The stream mapping's filter: posts only. A post's id is positive, so its key's digits start with
 * 1 to 9; the id counter ("0") and the change marker's shards ("-1" to "-8") never match, and
 * their changes never invoke the function.
 */
const POSTS_ONLY = {
  Filters: [
    {
      Pattern: JSON.stringify({
        dynamodb: { Keys: { id: { N: [..."123456789"].map((digit) => ({ prefix: digit })) } } },
      }),
    },
  ],
};

/** Writing to one function's own log group, as every role of the stack may. */
const logsFor = (stage, name) => ({
  Effect: "Allow",
  Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
  Resource: {
    "Fn::Sub": `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:/aws/lambda/${SERVICE}-${stage}-${name}:*`,
  },
});

const allow = (actions, resource) => ({ Effect: "Allow", Action: actions, Resource: resource });

const lambdaRole = (name, statements) => ({
  Type: "AWS::IAM::Role",
  Properties: {
    AssumeRolePolicyDocument: {
      Version: "2012-10-17",
      Statement: [
        {
          Effect: "Allow",
          Principal: { Service: "lambda.amazonaws.com" },
          Action: "sts:AssumeRole",
        },
      ],
    },
    Policies: [
      { PolicyName: name, PolicyDocument: { Version: "2012-10-17", Statement: statements } },
    ],
  },
});

/**
 * The stream function's role, and nothing more: reading the stream and writing to the dead-letter
 * queue, which Lambda's mapping does with the function's role, and the function's own calls,
 * PutEvents on the bus and SendMessage (SendMessageBatch's action too) on the webhook queue, which
 * exists with subscribers only.
 */
const publishEventsRole = (stage, subscribers) =>
  lambdaRole("publish-events", [
    logsFor(stage, "publishEvents"),
    allow(
      [
        "dynamodb:DescribeStream",
        "dynamodb:GetRecords",
        "dynamodb:GetShardIterator",
        "dynamodb:ListStreams",
      ],
      { "Fn::GetAtt": ["PostsTable", "StreamArn"] },
    ),
    allow(["events:PutEvents"], { "Fn::GetAtt": ["EventBus", "Arn"] }),
    allow(["sqs:SendMessage"], { "Fn::GetAtt": ["EventsDeadLetterQueue", "Arn"] }),
    ...(subscribers.length > 0
      ? [allow(["sqs:SendMessage"], { "Fn::GetAtt": ["WebhookQueue", "Arn"] })]
      : []),
  ]);

/**
 * The stream → function mapping, declared here rather than as an `events: - stream:` entry in
 * serverless.yml, so that its filter, its retries, its dead-letter queue and the grants that let
 * it read the stream sit in one module (osls would add no grant: the function's role is made
 * here). One mapping for the bus and the webhook queue alike: Lambda's reads of a stream are not
 * billed, so a stage where nothing is written costs nothing.
 * From the newest change on, 10 records a batch (one PutEvents request for events under 25 KB),
 * one batch per shard at a time (the default parallelization): each post's changes in order.
 * A record not handed on is retried from itself (ReportBatchItemFailures), up to 1,000 times or
 * until it is 6 hours old, whichever comes first, then its batch's shard and sequence numbers go
 * to the dead-letter queue with 18 of the stream's 24 hours left to replay it (docs/events.md).
 * A batch whose invocation fails (a timeout) is halved until the failing record stands alone.
 */
const postsStreamMapping = {
  Type: "AWS::Lambda::EventSourceMapping",
  Properties: {
    EventSourceArn: { "Fn::GetAtt": ["PostsTable", "StreamArn"] },
    FunctionName: { "Fn::GetAtt": ["PublishEventsLambdaFunction", "Arn"] },
    StartingPosition: "LATEST",
    BatchSize: 10,
    FilterCriteria: POSTS_ONLY,
    FunctionResponseTypes: ["ReportBatchItemFailures"],
    MaximumRetryAttempts: 1_000,
    MaximumRecordAgeInSeconds: 21_600,
    BisectBatchOnFunctionError: true,
    DestinationConfig: {
      OnFailure: { Destination: { "Fn::GetAtt": ["EventsDeadLetterQueue", "Arn"] } },
    },
  },
};

/** An alarm on a dead-letter queue holding anything; it notifies ALARM_TOPIC_ARN when set. */
const deadLetterAlarm = (queue, description, env) => {
  const topic = (env.ALARM_TOPIC_ARN ?? "").trim();
  return {
    Type: "AWS::CloudWatch::Alarm",
    Properties: {
      AlarmDescription: description,
      Namespace: "AWS/SQS",
      MetricName: "ApproximateNumberOfMessagesVisible",
      Dimensions: [{ Name: "QueueName", Value: { "Fn::GetAtt": [queue, "QueueName"] } }],
      Statistic: "Maximum",
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: 1,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
      TreatMissingData: "notBreaching",
      ...(topic && { AlarmActions: [topic], OKActions: [topic] }),
    },
  };
};

/** The bus, the stream mapping, its dead-letter queue and alarm, the role: in every stage. */
function busResources(stage, subscribers, env) {
  return {
    EventBus: { Type: "AWS::Events::EventBus", Properties: { Name: `${SERVICE}-${stage}-events` } },
    EventsDeadLetterQueue: {
      Type: "AWS::SQS::Queue",
      Properties: { MessageRetentionPeriod: 1_209_600, SqsManagedSseEnabled: true },
    },
    EventsDeadLetterAlarm: deadLetterAlarm(
      "EventsDeadLetterQueue",
      "Stream batches the publishEvents function could not hand on (replay them within the stream's 24 h: docs/events.md)",
      env,
    ),
    PublishEventsRole: publishEventsRole(stage, subscribers),
    PostsStreamMapping: postsStreamMapping,
  };
}

/** With subscribers: the FIFO queue, its dead letters and alarm, the delivery role. */
function webhookResources(stage, subscribers, env) {
  if (subscribers.length === 0) return {};
  const parameterArn = (name) => ({
    "Fn::Sub": `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter${secretParameter(stage, name)}`,
  });
  return {
    WebhookQueue: {
      Type: "AWS::SQS::Queue",
      Properties: {
        FifoQueue: true,
        // The stream function sets each message's deduplication id (the stream record's id).
        ContentBasedDeduplication: false,
        // Deduplication and throughput per post, not per queue.
        DeduplicationScope: "messageGroup",
        FifoThroughputLimit: "perMessageGroupId",
        // Six times the delivery function's timeout, as Lambda advises for an SQS source.
        VisibilityTimeout: 360,
        // Four days: the retry schedule's 27 hours and then some.
        MessageRetentionPeriod: 345_600,
        SqsManagedSseEnabled: true,
        RedrivePolicy: {
          deadLetterTargetArn: { "Fn::GetAtt": ["WebhookDeadLetterQueue", "Arn"] },
          maxReceiveCount: DELIVERY_ATTEMPTS,
        },
      },
    },
    WebhookDeadLetterQueue: {
      Type: "AWS::SQS::Queue",
      Properties: {
        FifoQueue: true,
        MessageRetentionPeriod: 1_209_600,
        SqsManagedSseEnabled: true,
      },
    },
    WebhookDeadLetterAlarm: deadLetterAlarm(
      "WebhookDeadLetterQueue",
      "Webhook deliveries that failed for a day (replay them: docs/events.md)",
      env,
    ),
    DeliverWebhooksRole: lambdaRole("deliver-webhooks", [
      logsFor(stage, "deliverWebhooks"),
      allow(
        [
          "sqs:ReceiveMessage",
          "sqs:DeleteMessage",
          "sqs:GetQueueAttributes",
          "sqs:ChangeMessageVisibility",
        ],
        { "Fn::GetAtt": ["WebhookQueue", "Arn"] },
      ),
      // Each subscriber's secret, and nothing else of Parameter Store.
      allow(
        ["ssm:GetParameter"],
        subscribers.map(({ name }) => parameterArn(name)),
      ),
    ]),
  };
}

/** Whether the stage sends webhooks (WEBHOOK_SUBSCRIBERS set). */
const hasSubscribers = (env = process.env) => readSubscribers(env).length > 0;

/** The delivery function's settings: subscribers and their secrets' names, never a secret. */
function deliveryEnvironment(stage, env = process.env) {
  const subscribers = readSubscribers(env).map(({ name, url }) => ({
    url,
    secretParameter: secretParameter(stage, name),
  }));
  return {
    WEBHOOK_SUBSCRIBERS: JSON.stringify(subscribers),
    WEBHOOK_QUEUE_URL: subscribers.length > 0 ? { Ref: "WebhookQueue" } : "",
  };
}

/**
 * The stream function's settings: the bus, and the webhook queue when there is one (the function
 * queues nothing without it).
 */
function publishEnvironment(env = process.env) {
  return {
    EVENT_BUS_NAME: { Ref: "EventBus" },
    ...(hasSubscribers(env) && { WEBHOOK_QUEUE_URL: { Ref: "WebhookQueue" } }),
  };
}

/** The stack's event resources, and the bus's name and ARN as outputs. */
function eventResources(stage, env = process.env) {
  const subscribers = readSubscribers(env);
  return {
    Resources: {
      ...busResources(stage, subscribers, env),
      ...webhookResources(stage, subscribers, env),
    },
    Outputs: {
      EventBusName: { Value: { Ref: "EventBus" } },
      EventBusArn: { Value: { "Fn::GetAtt": ["EventBus", "Arn"] } },
    },
  };
}

/**
 * A serverless plugin: without subscribers the stage gets no delivery function (its queue is not
 * in the template either), and a bad WEBHOOK_SUBSCRIBERS stops every command before it runs.
 */
class WebhookSubscribers {
  constructor(serverless) {
    this.hooks = {
      initialize: () => {
        if (!hasSubscribers()) delete serverless.service.functions.deliverWebhooks;
      },
    };
  }
}

module.exports = WebhookSubscribers;
Object.assign(module.exports, {
  readSubscribers,
  secretParameter,
  eventResources,
  POSTS_ONLY,
  resources: async ({ resolveVariable }) => eventResources(await resolveVariable("sls:stage")),
  deliveryEnvironment: async ({ resolveVariable }) =>
    deliveryEnvironment(await resolveVariable("sls:stage")),
  publishEnvironment: async () => publishEnvironment(),
});
