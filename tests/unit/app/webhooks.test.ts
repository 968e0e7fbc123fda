// Unit: the webhook delivery's composition root. Its settings are checked once; a subscriber's
// secrets come from SSM (both of a rotation's pair, read again only after five minutes); a failed
// delivery sets the message's visibility on SQS. SSM and SQS are fakes (aws-sdk-client-mock): no
// local engine serves them.
import { marshall } from "@aws-sdk/util-dynamodb";
import { ChangeMessageVisibilityCommand, SQSClient } from "@aws-sdk/client-sqs";
import { GetParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import type { Context, SQSEvent, SQSRecord } from "aws-lambda";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { readWebhookConfig, webhookHandler } from "../../../lib/app/webhooks.js";
import type { Subscriber } from "../../../lib/events/webhook-sender.js";

const sent: { url: string; secrets: string[]; id: string }[] = [];
const answer = { result: "delivered" as "delivered" | "failed" };
/** The sender, faked: the real one refuses every loopback address a test could listen on. */
const send = async (subscriber: Subscriber, id: string) => {
  sent.push({ ...subscriber, id });
  return { result: answer.result, detail: answer.result };
};
const ssm = mockClient(SSMClient);
const sqs = mockClient(SQSClient);
const post = { id: 3, title: "t", content: "c", created_at: null, updated_at: null, version: 9 };
const change = {
  eventName: "MODIFY",
  dynamodb: { Keys: marshall({ id: 3 }), NewImage: marshall(post) },
};
const batch = (): SQSEvent => ({
  Records: [
    {
      messageId: "m1",
      receiptHandle: "r1",
      body: JSON.stringify(change),
      attributes: { MessageGroupId: "3", ApproximateReceiveCount: "1" },
    } as unknown as SQSRecord,
  ],
});
const config = {
  subscribers: [{ url: "https://hooks.example.com/", secretParameter: "/blog/test/site" }],
  queueUrl: "https://sqs.example/q",
  region: "eu-west-1",
};
const handlerOf = (settings: typeof config) => webhookHandler(settings, send);

beforeEach(() => {
  sent.length = 0;
  answer.result = "delivered";
  ssm.reset();
  sqs.reset();
  ssm.on(GetParameterCommand).resolves({ Parameter: { Value: "whsec_new whsec_old" } });
});
afterEach(() => vi.useRealTimers());
// Not left on the SDK classes for the next test file of this worker (the unit project shares one).
afterAll(() => {
  ssm.restore();
  sqs.restore();
});

describe("readWebhookConfig", () => {
  const subscribers = JSON.stringify(config.subscribers);

  it("reads the subscribers and the queue, in us-east-1 unless the region is set", () => {
    const env = { WEBHOOK_SUBSCRIBERS: subscribers, WEBHOOK_QUEUE_URL: config.queueUrl };
    expect(readWebhookConfig(env)).toEqual({ ...config, region: "us-east-1" });
    expect(readWebhookConfig({ ...env, AWS_REGION: "eu-west-1" }).region).toBe("eu-west-1");
    expect(readWebhookConfig({ WEBHOOK_QUEUE_URL: "q" }).subscribers).toEqual([]);
  });

  it("refuses a subscriber that is not public https, and a missing queue", () => {
    const local = JSON.stringify([{ url: "https://127.0.0.1/", secretParameter: "p" }]);
    expect(() => readWebhookConfig({ WEBHOOK_SUBSCRIBERS: local, WEBHOOK_QUEUE_URL: "q" })).toThrow(
      "WEBHOOK_SUBSCRIBERS: https://127.0.0.1/ names an address that is not public",
    );
    expect(() => readWebhookConfig({ WEBHOOK_SUBSCRIBERS: subscribers })).toThrow(
      "WEBHOOK_QUEUE_URL is not set",
    );
  });
});

describe("webhookHandler", () => {
  const invoke = (handler: ReturnType<typeof webhookHandler>) =>
    handler(batch(), {} as Context, () => undefined);

  it("signs with both secrets of a rotation, read from SSM with decryption", async () => {
    expect(await invoke(handlerOf(config))).toEqual({ batchItemFailures: [] });
    expect(sent).toEqual([
      { url: "https://hooks.example.com/", secrets: ["whsec_new", "whsec_old"], id: "msg_post3v9" },
    ]);
    expect(ssm.commandCalls(GetParameterCommand)[0]?.args[0].input).toEqual({
      Name: "/blog/test/site",
      WithDecryption: true,
    });
  });

  it("reads a secret again only after five minutes", async () => {
    vi.useFakeTimers({ now: 0, toFake: ["Date"] });
    const handler = handlerOf(config);
    for (const at of [0, 299_999, 300_000]) {
      vi.setSystemTime(at);
      await handler(
        { Records: [{ ...batch().Records[0]!, messageId: `m${at}` }] },
        {} as Context,
        () => undefined,
      );
    }
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(2);
  });

  it("keeps a refused message out of sight on SQS for the schedule's first pause", async () => {
    answer.result = "failed";
    expect(await invoke(handlerOf(config))).toEqual({
      batchItemFailures: [{ itemIdentifier: "m1" }],
    });
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand)[0]?.args[0].input).toEqual({
      QueueUrl: config.queueUrl,
      ReceiptHandle: "r1",
      VisibilityTimeout: 5,
    });
  });
});
