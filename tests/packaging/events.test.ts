// Packaging tests: the post events (config/events.cjs): stream, mapping, bus, webhook queue and
// delivery, dead letters and alarms, least privilege, nothing billed idle, no secret anywhere.
import { describe, expect, it } from "vitest";
import { DELIVERY_ATTEMPTS, RETRY_DELAYS_MS } from "../../lib/events/retry-schedule.js";
import { type Template, packagedBeforeAll } from "../helpers/package.js";

const SUBSCRIBERS = "site=https://hooks.example.com/blog, search=https://search.example.org/in";
const packages = packagedBeforeAll({ plain: {}, subscribed: { WEBHOOK_SUBSCRIBERS: SUBSCRIBERS } });
const plain = () => packages.plain.template;
const subscribed = () => packages.subscribed.template;

type Statement = { Effect: string; Action: string | string[]; Resource: unknown };
type Policy = { PolicyDocument: { Statement: Statement[] } };
const props = (template: Template, id: string) => template.Resources[id]!.Properties;
const getAtt = (id: string, attribute: string) => ({ "Fn::GetAtt": [id, attribute] });

/** Each resource a role may act on, with the actions it may take there. */
function grants(template: Template, roleId: string) {
  const granted: Record<string, string[]> = {};
  const policies: Policy[] = props(template, roleId).Policies;
  for (const statement of policies.flatMap((policy) => policy.PolicyDocument.Statement)) {
    expect(statement.Effect).toBe("Allow");
    for (const target of [statement.Resource].flat()) {
      const key = JSON.stringify(target);
      granted[key] = [...(granted[key] ?? []), ...[statement.Action].flat()].sort();
    }
  }
  return granted;
}

/** Whether a filter pattern (EventBridge's syntax, which Lambda's filters share) takes a key `id`. */
function filterTakes(pattern: string, id: string) {
  const prefixes = JSON.parse(pattern).dynamodb.Keys.id.N as { prefix: string }[];
  return prefixes.some(({ prefix }) => id.startsWith(prefix));
}

/** The event source mappings that read `arn` (the stream's or the webhook queue's). */
const mappingOf = (template: Template, arn: unknown) =>
  Object.values(template.Resources).filter(
    (resource) =>
      resource.Type === "AWS::Lambda::EventSourceMapping" &&
      JSON.stringify(resource.Properties.EventSourceArn) === JSON.stringify(arn),
  );
const STREAM = getAtt("PostsTable", "StreamArn");
const streamMapping = (template: Template) => mappingOf(template, STREAM)[0]!.Properties;

/** What the publishing function's role allows in every stage, resource by resource. */
const publishGrants = () => ({
  [JSON.stringify({
    "Fn::Sub":
      "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/lambda/blog-post-api-test-publishEvents:*",
  })]: ["logs:CreateLogStream", "logs:PutLogEvents"],
  // What Lambda's mapping reads the stream with.
  [JSON.stringify(STREAM)]: [
    "dynamodb:DescribeStream",
    "dynamodb:GetRecords",
    "dynamodb:GetShardIterator",
    "dynamodb:ListStreams",
  ],
  [JSON.stringify(getAtt("EventBus", "Arn"))]: ["events:PutEvents"],
  // The mapping's on-failure destination is written with the function's role.
  [JSON.stringify(getAtt("EventsDeadLetterQueue", "Arn"))]: ["sqs:SendMessage"],
});

describe("in every stage", () => {
  it("one event source mapping reads the table's stream (old and new) into the publisher, posts only", () => {
    expect(props(plain(), "PostsTable").StreamSpecification).toEqual({
      StreamViewType: "NEW_AND_OLD_IMAGES",
    });
    // The only one in each stage: "bills nothing while idle", below.
    const mapping = streamMapping(plain());
    expect(mapping).toMatchObject({
      FunctionName: getAtt("PublishEventsLambdaFunction", "Arn"),
      StartingPosition: "LATEST",
    });
    // Each shard's batches one at a time (the default), so a post's changes stay in order.
    expect(mapping.ParallelizationFactor ?? 1).toBe(1);
    const [filter, ...more] = mapping.FilterCriteria.Filters;
    expect(more).toEqual([]);
    for (const id of ["1", "9", "42", "9007199254740991"])
      expect(filterTakes(filter.Pattern, id)).toBe(true);
    // The id counter and the change marker's shards.
    for (const id of ["0", "-1", "-8"]) expect(filterTakes(filter.Pattern, id)).toBe(false);
  });

  it("the function puts on the stage's bus, and queues nothing without subscribers", () => {
    expect(props(plain(), "EventBus").Name).toBe("blog-post-api-test-events");
    const environment = props(plain(), "PublishEventsLambdaFunction").Environment.Variables;
    expect(environment.EVENT_BUS_NAME).toEqual({ Ref: "EventBus" });
    expect(environment).not.toHaveProperty("WEBHOOK_QUEUE_URL");
    for (const id of ["WebhookQueue", "DeliverWebhooksLambdaFunction"]) {
      expect(plain().Resources[id], id).toBeUndefined();
    }
  });

  it("reports the first record not handed on, retries from it a bounded time, then dead-letters it behind an alarm", () => {
    const mapping = streamMapping(plain());
    expect(mapping).toMatchObject({
      FunctionResponseTypes: ["ReportBatchItemFailures"],
      BisectBatchOnFunctionError: true,
      DestinationConfig: { OnFailure: { Destination: getAtt("EventsDeadLetterQueue", "Arn") } },
    });
    expect(mapping.MaximumRetryAttempts).toBeGreaterThan(0);
    expect(mapping.MaximumRetryAttempts).toBeLessThanOrEqual(10_000);
    // Given up on with most of the stream's 24 hours left to replay it from the dead letter.
    expect(mapping.MaximumRecordAgeInSeconds).toBeGreaterThan(0);
    expect(mapping.MaximumRecordAgeInSeconds).toBeLessThanOrEqual(86_400 / 2);
    // A standard queue: a stream mapping's on-failure destination cannot be FIFO.
    expect(props(plain(), "EventsDeadLetterQueue").FifoQueue).toBeUndefined();
    expect(props(plain(), "EventsDeadLetterAlarm")).toMatchObject({
      Namespace: "AWS/SQS",
      MetricName: "ApproximateNumberOfMessagesVisible",
      Dimensions: [{ Name: "QueueName", Value: getAtt("EventsDeadLetterQueue", "QueueName") }],
      Threshold: 1,
    });
  });

  it("bills nothing while idle: nothing reads the stream but Lambda's mapping, whose reads are free", () => {
    for (const template of [plain(), subscribed()]) {
      // A Pipe's reads of a stream, say, are billed even when nothing changes.
      const readers = Object.values(template.Resources).filter((resource) =>
        JSON.stringify(resource.Properties).includes('["PostsTable","StreamArn"]'),
      );
      // The mapping, and the role whose grants let it read.
      expect(readers.map((resource) => resource.Type).sort()).toEqual([
        "AWS::IAM::Role",
        "AWS::Lambda::EventSourceMapping",
      ]);
    }
  });

  it("the function may read the stream, put on the bus and dead-letter, and nothing else", () => {
    expect(grants(plain(), "PublishEventsRole")).toEqual(publishGrants());
  });
});

describe("with WEBHOOK_SUBSCRIBERS", () => {
  it("the same function queues each change on a FIFO queue, one message group per post", () => {
    expect(props(subscribed(), "WebhookQueue")).toMatchObject({
      FifoQueue: true,
      ContentBasedDeduplication: false,
      DeduplicationScope: "messageGroup",
      FifoThroughputLimit: "perMessageGroupId",
    });
    const environment = props(subscribed(), "PublishEventsLambdaFunction").Environment.Variables;
    expect(environment).toMatchObject({
      EVENT_BUS_NAME: { Ref: "EventBus" },
      WEBHOOK_QUEUE_URL: { Ref: "WebhookQueue" },
    });
    // No second reader of the stream: its mapping is the one of every stage.
    expect(streamMapping(subscribed())).toEqual(streamMapping(plain()));
  });

  it("the function may also send to the webhook queue, and nothing else", () => {
    expect(grants(subscribed(), "PublishEventsRole")).toEqual({
      ...publishGrants(),
      [JSON.stringify(getAtt("WebhookQueue", "Arn"))]: ["sqs:SendMessage"],
    });
  });

  it("the delivery function reads it one message at a time, reporting failures per message", () => {
    const [mapping, ...more] = mappingOf(subscribed(), getAtt("WebhookQueue", "Arn"));
    expect(more).toEqual([]);
    expect(mapping?.Properties).toMatchObject({
      FunctionName: getAtt("DeliverWebhooksLambdaFunction", "Arn"),
      BatchSize: 1,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
    });
  });

  it("keeps a message through every retry, then dead-letters it behind an alarm", () => {
    const queue = props(subscribed(), "WebhookQueue");
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: getAtt("WebhookDeadLetterQueue", "Arn"),
      maxReceiveCount: DELIVERY_ATTEMPTS,
    });
    const retries = RETRY_DELAYS_MS.reduce((sum, ms) => sum + ms, 0) / 1000;
    expect(retries).toBeGreaterThan(86_400);
    expect(queue.MessageRetentionPeriod).toBeGreaterThan(retries);
    expect(props(subscribed(), "WebhookDeadLetterQueue").FifoQueue).toBe(true);
    expect(props(subscribed(), "WebhookDeadLetterAlarm").Dimensions).toEqual([
      { Name: "QueueName", Value: getAtt("WebhookDeadLetterQueue", "QueueName") },
    ]);
  });

  it("names each subscriber's secret parameter, holds no secret, and may read only those", () => {
    const environment = props(subscribed(), "DeliverWebhooksLambdaFunction").Environment.Variables;
    expect(JSON.parse(environment.WEBHOOK_SUBSCRIBERS)).toEqual([
      {
        url: "https://hooks.example.com/blog",
        secretParameter: "/blog-post-api/test/webhooks/site",
      },
      {
        url: "https://search.example.org/in",
        secretParameter: "/blog-post-api/test/webhooks/search",
      },
    ]);
    expect(JSON.stringify(subscribed())).not.toMatch(/whsec_|ssm-secure|secretsmanager:/);
    const granted = grants(subscribed(), "DeliverWebhooksRole");
    const parameters = Object.entries(granted).filter(([, actions]) =>
      actions.includes("ssm:GetParameter"),
    );
    expect(parameters.map(([target]) => JSON.parse(target)["Fn::Sub"])).toEqual([
      expect.stringMatching(/:parameter\/blog-post-api\/test\/webhooks\/site$/),
      expect.stringMatching(/:parameter\/blog-post-api\/test\/webhooks\/search$/),
    ]);
    expect(granted[JSON.stringify(getAtt("WebhookQueue", "Arn"))]).toEqual([
      "sqs:ChangeMessageVisibility",
      "sqs:DeleteMessage",
      "sqs:GetQueueAttributes",
      "sqs:ReceiveMessage",
    ]);
    expect(Object.keys(granted)).toHaveLength(4); // its log group, the queue, two parameters
  });
});
