// Unit: the webhook delivery's composition root: settings checked once, a subscriber's secrets from
// SSM (both of a rotation's pair, read again after five minutes), a failed delivery's visibility
// set on SQS. SSM and SQS are fakes (aws-sdk-client-mock): no local engine serves them.
import { marshall } from "@aws-sdk/util-dynamodb";
import { ChangeMessageVisibilityCommand, SQSClient } from "@aws-sdk/client-sqs";
import { GetParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import type { Context, SQSRecord } from "aws-lambda";
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
const config = {
  subscribers: [{ url: "https://hooks.example.com/", secretParameter: "/blog/test/site" }],
  queueUrl: "https://sqs.example/q",
  region: "eu-west-1",
};
/** Runs the handler over a batch of one message, the post's change. */
const invoke = (handler: ReturnType<typeof webhookHandler>, messageId = "m1") => {
  const attributes = { MessageGroupId: "3", ApproximateReceiveCount: "1" };
  const body = JSON.stringify(change);
  const record = { messageId, receiptHandle: "r1", body, attributes } as unknown as SQSRecord;
  return handler({ Records: [record] }, {} as Context, () => undefined);
};

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
    const read = (env: NodeJS.ProcessEnv) => () => readWebhookConfig(env);
    const refusal = "WEBHOOK_SUBSCRIBERS: https://127.0.0.1/ names an address that is not public";
    expect(read({ WEBHOOK_SUBSCRIBERS: local, WEBHOOK_QUEUE_URL: "q" })).toThrow(refusal);
    expect(read({ WEBHOOK_SUBSCRIBERS: subscribers })).toThrow("WEBHOOK_QUEUE_URL is not set");
  });
});

describe("webhookHandler", () => {
  it("signs with both secrets of a rotation, read from SSM with decryption", async () => {
    expect(await invoke(webhookHandler(config, send))).toEqual({ batchItemFailures: [] });
    expect(sent).toEqual([
      { url: "https://hooks.example.com/", secrets: ["whsec_new", "whsec_old"], id: "msg_post3v9" },
    ]);
    const read = { Name: "/blog/test/site", WithDecryption: true };
    expect(ssm.commandCalls(GetParameterCommand)[0]?.args[0].input).toEqual(read);
  });

  it("reads a secret again only after five minutes", async () => {
    vi.useFakeTimers({ now: 0, toFake: ["Date"] });
    const handler = webhookHandler(config, send);
    for (const at of [0, 299_999, 300_000]) {
      vi.setSystemTime(at);
      await invoke(handler, `m${at}`);
    }
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(2);
  });

  it("keeps a refused message out of sight on SQS for the schedule's first pause", async () => {
    answer.result = "failed";
    const failures = [{ itemIdentifier: "m1" }];
    expect(await invoke(webhookHandler(config, send))).toEqual({ batchItemFailures: failures });
    const hidden = { QueueUrl: config.queueUrl, ReceiptHandle: "r1", VisibilityTimeout: 5 };
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand)[0]?.args[0].input).toEqual(hidden);
  });
});
