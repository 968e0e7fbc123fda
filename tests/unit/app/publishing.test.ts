// Unit: the stream function's composition root: settings read once and checked; a stream batch put
// on the named bus, and queued for webhooks only when the stage has a queue. EventBridge and SQS
// are fakes (aws-sdk-client-mock).
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
const dynamodb = { SequenceNumber: "100", Keys: marshall({ id: 3 }), NewImage: marshall(post) };
const batch = {
  Records: [{ eventID: "ev1", eventName: "INSERT", dynamodb }],
} as DynamoDBStreamEvent;

beforeEach(() => {
  eventBridge.reset();
  sqs.reset();
  eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: "e" }] });
  const Successful = [{ Id: "0", MessageId: "m0", MD5OfMessageBody: "" }];
  sqs.on(SendMessageBatchCommand).resolves({ Successful, Failed: [] });
});
// Not left on the SDK classes for the next test file of this worker (the unit project shares one).
afterAll(() => {
  eventBridge.restore();
  sqs.restore();
});

describe("readPublishConfig", () => {
  it("reads the bus, the queue when set, and the region (us-east-1 unless set)", () => {
    const unset = { busName: "b", queueUrl: undefined, region: "us-east-1" };
    expect(readPublishConfig({ EVENT_BUS_NAME: "b" })).toEqual(unset);
    const env = { EVENT_BUS_NAME: "b", WEBHOOK_QUEUE_URL: "q", AWS_REGION: "eu-west-1" };
    expect(readPublishConfig(env)).toEqual({ busName: "b", queueUrl: "q", region: "eu-west-1" });
  });

  it("refuses to start without a bus", () => {
    expect(() => readPublishConfig({})).toThrow("EVENT_BUS_NAME is not set");
  });
});

describe("publishHandler", () => {
  const handlerFor = (queueUrl?: string) =>
    publishHandler({ busName: "b", queueUrl, region: "eu-west-1" });

  it("puts each change on the named bus, and queues nothing without a queue", async () => {
    expect(await handlerFor()(batch)).toEqual({ batchItemFailures: [] });
    const [put] = eventBridge.commandCalls(PutEventsCommand);
    expect(put?.args[0].input.Entries?.[0]?.EventBusName).toBe("b");
    expect(sqs.commandCalls(SendMessageBatchCommand)).toEqual([]);
  });

  it("logs a change it could not hand on as an error line, and reports it for a retry", async () => {
    eventBridge.on(PutEventsCommand).rejects(new Error("bus down"));
    const handler = handlerFor();
    const logged = await linesWrittenBy(async () => {
      expect(await handler(batch)).toEqual({ batchItemFailures: [{ itemIdentifier: "100" }] });
    });
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) expect(line.level).toBe("ERROR");
  });

  it("with a queue, queues each change there, each SDK client timed short of the function's 30 s", async () => {
    expect(await handlerFor("q")(batch)).toEqual({ batchItemFailures: [] });
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
      const timeouts = { connectionTimeout: 1_000, requestTimeout: 5_000 };
      expect(handlerConfig).toMatchObject({ ...timeouts, throwOnRequestTimeout: true });
    }
  });
});
