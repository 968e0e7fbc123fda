// Unit: npm start's webhook delivery is the stage's own batch handler and sender, to one subscriber
// on loopback over http, which no stage setting admits; a failure keeps the message on the queue.
import { randomBytes } from "node:crypto";
import type { SQSRecord } from "aws-lambda";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, it } from "vitest";
import { localWebhookDelivery } from "../../../lib/app/webhooks.js";
import { type Subscriber, startSubscriber } from "../../helpers/webhook-subscriber.js";

let subscriber: Subscriber;
beforeAll(async () => void (subscriber = await startSubscriber()));
afterAll(() => subscriber.close());

const event = { type: "post.deleted", data: { id: 4 }, version: 2, time: "2026-11-28T00:00:00Z" };
const record = (messageId: string) =>
  ({
    messageId,
    body: JSON.stringify(event),
    attributes: { MessageGroupId: "4", ApproximateReceiveCount: "1" },
  }) as unknown as SQSRecord;

it("signs and sends each event to the one loopback subscriber, and delays a failed one", async () => {
  const secret = `whsec_${randomBytes(24).toString("base64")}`;
  const delays: [string, number][] = [];
  const logged: string[] = [];
  const deliver = localWebhookDelivery(
    { url: subscriber.url, secrets: [secret] },
    {
      delay: async ({ messageId }, seconds) => void delays.push([messageId, seconds]),
      log: (message) => void logged.push(message),
      retryDelayMs: () => 2_000,
    },
  );
  expect(await deliver([record("m1")])).toEqual({ batchItemFailures: [] });
  const [first] = subscriber.deliveries;
  expect(new Webhook(secret).verify(first?.body ?? "", first?.headers ?? {})).toEqual(event);
  subscriber.answerWith(() => 500);
  expect(await deliver([record("m2")])).toEqual({ batchItemFailures: [{ itemIdentifier: "m2" }] });
  expect(delays).toEqual([["m2", 2]]);
  expect(logged).toEqual(["webhook delivery failed"]);
});
