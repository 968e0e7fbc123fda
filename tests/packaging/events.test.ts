// Packaging tests: the post events in the template (config/events.cjs): the table's stream, the
// stage's bus and the Pipe that feeds it, the webhook queue and its delivery function with
// subscribers set, the dead letters and their alarms, least privilege, and no secret anywhere.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELIVERY_ATTEMPTS, RETRY_DELAYS_MS } from "../../lib/events/retry-schedule.js";
import {
  type Resource,
  type Template,
  packageInto,
  runServerless,
  templateEnv,
} from "../helpers/package.js";

const SUBSCRIBERS = "site=https://hooks.example.com/blog, search=https://search.example.org/in";
const folders: string[] = [];
let plain: Template;
let subscribed: Template;

async function packaged(settings: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), "blog-post-events-"));
  folders.push(dir);
  return packageInto(dir, templateEnv(settings));
}

beforeAll(async () => {
  [plain, subscribed] = await Promise.all([
    packaged({}),
    packaged({ WEBHOOK_SUBSCRIBERS: SUBSCRIBERS }),
  ]);
});
afterAll(async () => {
  for (const dir of folders) await rm(dir, { recursive: true, force: true });
});

type Statement = { Effect: string; Action: string | string[]; Resource: unknown };
// The template is JSON read path by path; each expectation says what it must hold.
const props = (template: Template, id: string) =>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (template.Resources[id] as Resource).Properties as Record<string, any>;
const getAtt = (id: string, attribute: string) => ({ "Fn::GetAtt": [id, attribute] });

/** Each resource a role may act on, with the actions it may take there. */
function grants(template: Template, roleId: string) {
  const granted: Record<string, string[]> = {};
  const policies = props(template, roleId).Policies as {
    PolicyDocument: { Statement: Statement[] };
  }[];
  for (const statement of policies.flatMap((policy) => policy.PolicyDocument.Statement)) {
    expect(statement.Effect).toBe("Allow");
    for (const target of [statement.Resource].flat()) {
      const key = JSON.stringify(target);
      granted[key] = [...(granted[key] ?? []), ...[statement.Action].flat()].sort();
    }
  }
  return granted;
}

/** Whether an EventBridge pattern of `{"prefix": …}` alternatives takes a key `id`. */
function filterTakes(pattern: string, id: string) {
  const prefixes = JSON.parse(pattern).dynamodb.Keys.id.N as { prefix: string }[];
  return prefixes.some(({ prefix }) => id.startsWith(prefix));
}

describe("in every stage", () => {
  it("the posts table has a stream with the item before and after each change", () => {
    expect(props(plain, "PostsTable").StreamSpecification).toEqual({
      StreamViewType: "NEW_AND_OLD_IMAGES",
    });
  });

  it("a Pipe reads the stream, keeps posts only, maps them and puts them on the stage's bus", () => {
    expect(props(plain, "EventBus").Name).toBe("blog-post-api-test-events");
    const pipe = props(plain, "EventsPipe");
    expect(pipe.Source).toEqual(getAtt("PostsTable", "StreamArn"));
    expect(pipe.Enrichment).toEqual(getAtt("PublishEventsLambdaFunction", "Arn"));
    expect(pipe.Target).toEqual(getAtt("EventBus", "Arn"));
    // As asyncapi.yaml's eventBus channel says.
    expect(pipe.TargetParameters.EventBridgeEventBusParameters).toEqual({
      DetailType: "Blog post changed",
      Source: "blog-post-api",
    });
    const [filter] = pipe.SourceParameters.FilterCriteria.Filters;
    for (const id of ["1", "9", "42", "9007199254740991"])
      expect(filterTakes(filter.Pattern, id)).toBe(true);
    // The id counter and the change marker's shards.
    for (const id of ["0", "-1", "-8"]) expect(filterTakes(filter.Pattern, id)).toBe(false);
  });

  it("what the Pipe cannot hand on after a day lands in a dead-letter queue an alarm watches", () => {
    const source = props(plain, "EventsPipe").SourceParameters.DynamoDBStreamParameters;
    expect(source).toMatchObject({
      MaximumRecordAgeInSeconds: 86_400,
      OnPartialBatchItemFailure: "AUTOMATIC_BISECT",
      DeadLetterConfig: { Arn: getAtt("EventsDeadLetterQueue", "Arn") },
    });
    expect(props(plain, "EventsDeadLetterAlarm")).toMatchObject({
      Namespace: "AWS/SQS",
      MetricName: "ApproximateNumberOfMessagesVisible",
      Dimensions: [{ Name: "QueueName", Value: getAtt("EventsDeadLetterQueue", "QueueName") }],
      Threshold: 1,
    });
  });

  it("has no webhook queue or delivery function without subscribers", () => {
    for (const id of ["WebhookQueue", "WebhookPipe", "DeliverWebhooksLambdaFunction"]) {
      expect(plain.Resources[id], id).toBeUndefined();
    }
  });

  it("the Pipe may read the stream, call the mapping and put on the bus, and nothing else", () => {
    expect(grants(plain, "EventsPipeRole")).toEqual({
      [JSON.stringify(getAtt("PostsTable", "StreamArn"))]: [
        "dynamodb:DescribeStream",
        "dynamodb:GetRecords",
        "dynamodb:GetShardIterator",
        "dynamodb:ListStreams",
      ],
      [JSON.stringify(getAtt("EventsDeadLetterQueue", "Arn"))]: ["sqs:SendMessage"],
      [JSON.stringify(getAtt("PublishEventsLambdaFunction", "Arn"))]: ["lambda:InvokeFunction"],
      [JSON.stringify(getAtt("EventBus", "Arn"))]: ["events:PutEvents"],
    });
    const mapping = grants(plain, "PublishEventsRole");
    expect(Object.values(mapping)).toEqual([["logs:CreateLogStream", "logs:PutLogEvents"]]);
  });
});

describe("with WEBHOOK_SUBSCRIBERS", () => {
  it("a second Pipe fills a FIFO queue, one message group per post", () => {
    expect(props(subscribed, "WebhookQueue")).toMatchObject({
      FifoQueue: true,
      DeduplicationScope: "messageGroup",
      FifoThroughputLimit: "perMessageGroupId",
    });
    const pipe = props(subscribed, "WebhookPipe");
    expect(pipe.Source).toEqual(getAtt("PostsTable", "StreamArn"));
    expect(pipe.Target).toEqual(getAtt("WebhookQueue", "Arn"));
    expect(pipe.TargetParameters.SqsQueueParameters).toEqual({
      MessageGroupId: "$.dynamodb.Keys.id.N",
      MessageDeduplicationId: "$.eventID",
    });
    expect(pipe.SourceParameters.FilterCriteria).toEqual(
      props(subscribed, "EventsPipe").SourceParameters.FilterCriteria,
    );
  });

  it("the delivery function reads it one message at a time, reporting failures per message", () => {
    const mapping = Object.values(subscribed.Resources).find(
      (resource) => resource.Type === "AWS::Lambda::EventSourceMapping",
    );
    expect(mapping?.Properties).toMatchObject({
      EventSourceArn: getAtt("WebhookQueue", "Arn"),
      FunctionName: getAtt("DeliverWebhooksLambdaFunction", "Arn"),
      BatchSize: 1,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
    });
  });

  it("keeps a message through every retry, then dead-letters it behind an alarm", () => {
    const queue = props(subscribed, "WebhookQueue");
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: getAtt("WebhookDeadLetterQueue", "Arn"),
      maxReceiveCount: DELIVERY_ATTEMPTS,
    });
    const retries = RETRY_DELAYS_MS.reduce((sum, ms) => sum + ms, 0) / 1000;
    expect(retries).toBeGreaterThan(86_400);
    expect(queue.MessageRetentionPeriod).toBeGreaterThan(retries);
    expect(props(subscribed, "WebhookDeadLetterQueue").FifoQueue).toBe(true);
    expect(props(subscribed, "WebhookDeadLetterAlarm").Dimensions).toEqual([
      { Name: "QueueName", Value: getAtt("WebhookDeadLetterQueue", "QueueName") },
    ]);
  });

  it("names each subscriber's secret parameter, holds no secret, and may read only those", () => {
    const environment = props(subscribed, "DeliverWebhooksLambdaFunction").Environment.Variables;
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
    expect(JSON.stringify(subscribed)).not.toMatch(/whsec_|ssm-secure|secretsmanager:/);
    const granted = grants(subscribed, "DeliverWebhooksRole");
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
    expect(
      grants(subscribed, "WebhookPipeRole")[JSON.stringify(getAtt("WebhookQueue", "Arn"))],
    ).toEqual(["sqs:SendMessage"]);
  });

  // Every refusal's wording is unit-tested (tests/unit/events/subscribers-setting.test.ts); here
  // one of each kind shows the template refuses before any command runs. `print` loads the
  // template as `package` does, without packaging.
  it.each([
    ["site=https://localhost/", "names a private or loopback address"],
    ["https://hooks.example.com/", "name=https://url pairs"],
  ])("refuses %s before any command runs", async (setting, refusal) => {
    await expect(
      runServerless(["print", "--stage", "test"], templateEnv({ WEBHOOK_SUBSCRIBERS: setting })),
    ).rejects.toThrow(refusal);
  });
});
