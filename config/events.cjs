// Post events on AWS (docs/events.md): the stage's EventBridge bus, fed from the posts table's
// stream by a Pipe whose enrichment function maps each change; with WEBHOOK_SUBSCRIBERS, a second
// Pipe into an SQS FIFO queue (one message group per post) that the delivery function reads.
// Each path has a dead-letter queue and an alarm on it. No secret is in the template: each
// subscriber's lives in SSM Parameter Store under /<service>/<stage>/webhooks/<name>.
const { BlockList, isIP } = require("node:net");
const { SERVICE } = require("./names.cjs");

/** Tries before a delivery is dead-lettered: lib/events/retry-schedule.ts's DELIVERY_ATTEMPTS. */
const DELIVERY_ATTEMPTS = 8;
const DETAIL_TYPE = "Blog post changed";

const privateNetworks = new BlockList();
for (const [network, prefix, family] of [
  ["0.0.0.0", 8, "ipv4"],
  ["10.0.0.0", 8, "ipv4"],
  ["100.64.0.0", 10, "ipv4"],
  ["127.0.0.0", 8, "ipv4"],
  ["169.254.0.0", 16, "ipv4"],
  ["172.16.0.0", 12, "ipv4"],
  ["192.168.0.0", 16, "ipv4"],
  ["::", 127, "ipv6"],
  ["fc00::", 7, "ipv6"],
  ["fe80::", 10, "ipv6"],
]) {
  privateNetworks.addSubnet(network, prefix, family);
}

/**
 * WEBHOOK_SUBSCRIBERS: `name=https://url` pairs, comma-separated. Refused here, before anything
 * is packaged: a URL that is not https, carries credentials, or names localhost, a private, a
 * loopback or a link-local address (the delivery function checks resolved addresses again).
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
    const family = isIP(host);
    const refusal =
      parsed.protocol !== "https:"
        ? "is not https"
        : parsed.username || parsed.password
          ? "carries credentials"
          : host === "localhost" ||
              host.endsWith(".localhost") ||
              (family !== 0 && privateNetworks.check(host, family === 6 ? "ipv6" : "ipv4"))
            ? "names a private or loopback address"
            : undefined;
    if (refusal) throw new Error(`WEBHOOK_SUBSCRIBERS: ${url} ${refusal}`);
    return { name, url };
  });
}

const secretParameter = (stage, name) => `/${SERVICE}/${stage}/webhooks/${name}`;

/**
 * The Pipes' filter: posts only. A post's id is positive, so its key's digits start with 1 to 9;
 * the id counter ("0") and the change marker's shards ("-1" to "-8") never match.
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

const assumedBy = (service) => ({
  Version: "2012-10-17",
  Statement: [{ Effect: "Allow", Principal: { Service: service }, Action: "sts:AssumeRole" }],
});

const role = (service, name, statements) => ({
  Type: "AWS::IAM::Role",
  Properties: {
    AssumeRolePolicyDocument: assumedBy(service),
    Policies: [
      { PolicyName: name, PolicyDocument: { Version: "2012-10-17", Statement: statements } },
    ],
  },
});

/** What a Pipe may do to read the table's stream and dead-letter what it cannot hand on. */
const readStream = [
  {
    Effect: "Allow",
    Action: [
      "dynamodb:DescribeStream",
      "dynamodb:GetRecords",
      "dynamodb:GetShardIterator",
      "dynamodb:ListStreams",
    ],
    Resource: { "Fn::GetAtt": ["PostsTable", "StreamArn"] },
  },
  {
    Effect: "Allow",
    Action: ["sqs:SendMessage"],
    Resource: { "Fn::GetAtt": ["EventsDeadLetterQueue", "Arn"] },
  },
];

/**
 * A stream source: from the newest change on, a day of retries (the stream keeps 24 h), then the
 * dead-letter queue; a failing batch is halved until the failing record stands alone.
 */
const streamSource = {
  DynamoDBStreamParameters: {
    StartingPosition: "LATEST",
    BatchSize: 10,
    MaximumRecordAgeInSeconds: 86_400,
    MaximumRetryAttempts: 185,
    OnPartialBatchItemFailure: "AUTOMATIC_BISECT",
    DeadLetterConfig: { Arn: { "Fn::GetAtt": ["EventsDeadLetterQueue", "Arn"] } },
  },
  FilterCriteria: POSTS_ONLY,
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

/** The bus, the stream → bus Pipe, its dead-letter queue and alarm: in every stage. */
function busResources(stage, env) {
  return {
    EventBus: { Type: "AWS::Events::EventBus", Properties: { Name: `${SERVICE}-${stage}-events` } },
    EventsDeadLetterQueue: {
      Type: "AWS::SQS::Queue",
      Properties: { MessageRetentionPeriod: 1_209_600, SqsManagedSseEnabled: true },
    },
    EventsDeadLetterAlarm: deadLetterAlarm(
      "EventsDeadLetterQueue",
      "Changes of posts the stream's Pipes could not hand on (events lost until replayed)",
      env,
    ),
    PublishEventsRole: role("lambda.amazonaws.com", "publish-events", [
      logsFor(stage, "publishEvents"),
    ]),
    EventsPipeRole: role("pipes.amazonaws.com", "events-pipe", [
      ...readStream,
      {
        Effect: "Allow",
        Action: ["lambda:InvokeFunction"],
        Resource: { "Fn::GetAtt": ["PublishEventsLambdaFunction", "Arn"] },
      },
      {
        Effect: "Allow",
        Action: ["events:PutEvents"],
        Resource: { "Fn::GetAtt": ["EventBus", "Arn"] },
      },
    ]),
    EventsPipe: {
      Type: "AWS::Pipes::Pipe",
      Properties: {
        Name: `${SERVICE}-${stage}-events`,
        RoleArn: { "Fn::GetAtt": ["EventsPipeRole", "Arn"] },
        Source: { "Fn::GetAtt": ["PostsTable", "StreamArn"] },
        SourceParameters: streamSource,
        Enrichment: { "Fn::GetAtt": ["PublishEventsLambdaFunction", "Arn"] },
        Target: { "Fn::GetAtt": ["EventBus", "Arn"] },
        TargetParameters: {
          EventBridgeEventBusParameters: { DetailType: DETAIL_TYPE, Source: SERVICE },
        },
      },
    },
  };
}

/** With subscribers: the FIFO queue, its dead letters and alarm, its Pipe, the delivery role. */
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
        // The Pipe sets each message's deduplication id (the stream record's id).
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
    WebhookPipeRole: role("pipes.amazonaws.com", "webhook-pipe", [
      ...readStream,
      {
        Effect: "Allow",
        Action: ["sqs:SendMessage"],
        Resource: { "Fn::GetAtt": ["WebhookQueue", "Arn"] },
      },
    ]),
    WebhookPipe: {
      Type: "AWS::Pipes::Pipe",
      Properties: {
        Name: `${SERVICE}-${stage}-webhooks`,
        RoleArn: { "Fn::GetAtt": ["WebhookPipeRole", "Arn"] },
        Source: { "Fn::GetAtt": ["PostsTable", "StreamArn"] },
        SourceParameters: streamSource,
        Target: { "Fn::GetAtt": ["WebhookQueue", "Arn"] },
        TargetParameters: {
          SqsQueueParameters: {
            MessageGroupId: "$.dynamodb.Keys.id.N",
            MessageDeduplicationId: "$.eventID",
          },
        },
      },
    },
    DeliverWebhooksRole: role("lambda.amazonaws.com", "deliver-webhooks", [
      logsFor(stage, "deliverWebhooks"),
      {
        Effect: "Allow",
        Action: [
          "sqs:ReceiveMessage",
          "sqs:DeleteMessage",
          "sqs:GetQueueAttributes",
          "sqs:ChangeMessageVisibility",
        ],
        Resource: { "Fn::GetAtt": ["WebhookQueue", "Arn"] },
      },
      // Each subscriber's secret, and nothing else of Parameter Store.
      {
        Effect: "Allow",
        Action: ["ssm:GetParameter"],
        Resource: subscribers.map(({ name }) => parameterArn(name)),
      },
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

/** The stack's event resources, and the bus's name and ARN as outputs. */
function eventResources(stage, env = process.env) {
  const subscribers = readSubscribers(env);
  return {
    Resources: {
      ...busResources(stage, env),
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
  DETAIL_TYPE,
  resources: async ({ resolveVariable }) => eventResources(await resolveVariable("sls:stage")),
  deliveryEnvironment: async ({ resolveVariable }) =>
    deliveryEnvironment(await resolveVariable("sls:stage")),
});
