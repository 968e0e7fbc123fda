// Unit: the stream function's composition root. Its settings are read once and checked; the
// handler Lambda invokes with a stream batch puts on the named bus, and queues for webhooks only
// when the stage has a queue. EventBridge and SQS are fakes (aws-sdk-client-mock).
import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import { SQSClient, SendMessageBatchCommand } from "@aws-sdk/client-sqs";
import { marshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBStreamEvent } from "aws-lambda";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { publishHandler, readPublishConfig } from "../../../lib/app/publishing.js";
import { linesWrittenBy } from "../../helpers/handlers.js";

const eventBridge = mockClient(EventBridgeClient);
const sqs = mockClient(SQSClient);
const post = { id: 3, title: "t", content: "c", created_at: null, updated_at: null, version: 9 };
const batch = {
  Records: [
    {
      eventID: "ev1",
      eventName: "INSERT",
      dynamodb: { SequenceNumber: "100", Keys: marshall({ id: 3 }), NewImage: marshall(post) },
    },
  ],
} as DynamoDBStreamEvent;

beforeEach(() => {
  eventBridge.reset();
  sqs.reset();
  eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: "e" }] });
  sqs.on(SendMessageBatchCommand).resolves({
    Successful: [{ Id: "0", MessageId: "m0", MD5OfMessageBody: "" }],
    Failed: [],
  });
});
// Not left on the SDK classes for the next test file of this worker (the unit project shares one).
afterAll(() => {
  eventBridge.restore();
  sqs.restore();
});

describe("readPublishConfig", () => {
  it("reads the bus, the queue when set, and the region (us-east-1 unless set)", () => {
    expect(readPublishConfig({ EVENT_BUS_NAME: "b" })).toEqual({
      busName: "b",
      queueUrl: undefined,
      region: "us-east-1",
    });
    const env = { EVENT_BUS_NAME: "b", WEBHOOK_QUEUE_URL: "q", AWS_REGION: "eu-west-1" };
    expect(readPublishConfig(env)).toEqual({ busName: "b", queueUrl: "q", region: "eu-west-1" });
  });

  it("refuses to start without a bus", () => {
    expect(() => readPublishConfig({})).toThrow("EVENT_BUS_NAME is not set");
  });
});

describe("publishHandler", () => {
  it("puts each change on the named bus, and queues nothing without a queue", async () => {
    const handler = publishHandler({ busName: "b", queueUrl: undefined, region: "eu-west-1" });
    expect(await handler(batch)).toEqual({ batchItemFailures: [] });
    const [put] = eventBridge.commandCalls(PutEventsCommand);
    expect(put?.args[0].input.Entries?.[0]?.EventBusName).toBe("b");
    expect(sqs.commandCalls(SendMessageBatchCommand)).toEqual([]);
  });

  it("logs a change it could not hand on as an error line, and reports it for a retry", async () => {
    eventBridge.on(PutEventsCommand).rejects(new Error("bus down"));
    const handler = publishHandler({ busName: "b", queueUrl: undefined, region: "eu-west-1" });
    const logged = await linesWrittenBy(async () => {
      expect(await handler(batch)).toEqual({ batchItemFailures: [{ itemIdentifier: "100" }] });
    });
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) expect(line.level).toBe("ERROR");
  });

  it("with a queue, queues each change there, each SDK client timed short of the function's 30 s", async () => {
    const handler = publishHandler({ busName: "b", queueUrl: "q", region: "eu-west-1" });
    expect(await handler(batch)).toEqual({ batchItemFailures: [] });
    const [send] = sqs.commandCalls(SendMessageBatchCommand);
    expect(send?.args[0].input).toMatchObject({
      QueueUrl: "q",
      Entries: [{ MessageGroupId: "3", MessageDeduplicationId: "ev1" }],
    });
    for (const client of [eventBridge, sqs]) {
      const config = (client.send.thisValues[0] as { config: Record<string, unknown> }).config;
      expect(await (config.region as () => Promise<string>)()).toBe("eu-west-1");
      expect(await (config.maxAttempts as () => Promise<number>)()).toBe(3);
      const handlerConfig = await (
        config.requestHandler as { configProvider: Promise<Record<string, unknown>> }
      ).configProvider;
      expect(handlerConfig).toMatchObject({
        connectionTimeout: 1_000,
        requestTimeout: 5_000,
        throwOnRequestTimeout: true,
      });
    }
  });
});
