// The composition root of webhook delivery: settings read once, the subscribers' secrets from SSM
// Parameter Store, the queue's visibility set by SQS. The stream's side is publishing.ts.
// `npm start` composes the same delivery over its own queue and WEBHOOK_URL (localWebhookDelivery).
import { ChangeMessageVisibilityCommand, SQSClient } from "@aws-sdk/client-sqs";
import { GetParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import type { SQSHandler, SQSRecord } from "aws-lambda";
import { type QueueDeliveryDeps, queueDelivery } from "../events/queue-delivery.js";
import { type Subscriber, refusedUrl, sendWebhook } from "../events/webhook-sender.js";
import { createLogger } from "../http/logger.js";

/** How long a secret read from SSM is used before it is read again (a rotation's lag). */
const SECRET_CACHE_MS = 5 * 60_000;

/** One subscriber as the stage's setting names it: its URL and the SSM parameter of its secret. */
interface SubscriberSetting {
  url: string;
  secretParameter: string;
}

/** WEBHOOK_SUBSCRIBERS (JSON, written by config/events.cjs) and the queue; throws when wrong. */
export function readWebhookConfig(env: NodeJS.ProcessEnv = process.env) {
  const subscribers = JSON.parse(env.WEBHOOK_SUBSCRIBERS || "[]") as SubscriberSetting[];
  for (const { url } of subscribers) {
    const refused = refusedUrl(url);
    if (refused) throw new Error(`WEBHOOK_SUBSCRIBERS: ${url} ${refused}`);
  }
  const queueUrl = env.WEBHOOK_QUEUE_URL;
  if (!queueUrl) throw new Error("WEBHOOK_QUEUE_URL is not set");
  return { subscribers, queueUrl, region: env.AWS_REGION || "us-east-1" };
}

/** The SQS handler that delivers the queue's events to every subscriber, through `send`. */
export function webhookHandler(
  config: ReturnType<typeof readWebhookConfig>,
  send: typeof sendWebhook = sendWebhook,
): SQSHandler {
  const ssm = new SSMClient({ region: config.region, maxAttempts: 3 });
  const sqs = new SQSClient({ region: config.region, maxAttempts: 3 });
  const logger = createLogger("info");
  let cached: { subscribers: Subscriber[]; readAt: number } | undefined;
  const subscribers = async () => {
    if (cached && Date.now() - cached.readAt < SECRET_CACHE_MS) return cached.subscribers;
    const read = await Promise.all(
      config.subscribers.map(async ({ url, secretParameter }) => {
        const input = { Name: secretParameter, WithDecryption: true };
        const { Parameter } = await ssm.send(new GetParameterCommand(input));
        // Two secrets, space-separated, while one is being rotated: both sign.
        return { url, secrets: (Parameter?.Value ?? "").split(" ").filter(Boolean) };
      }),
    );
    cached = { subscribers: read, readAt: Date.now() };
    return read;
  };
  const delay = async (record: SQSRecord, seconds: number) => {
    const input = {
      QueueUrl: config.queueUrl,
      ReceiptHandle: record.receiptHandle,
      VisibilityTimeout: seconds,
    };
    await sqs.send(new ChangeMessageVisibilityCommand(input));
  };
  const deliver = queueDelivery({
    subscribers,
    send: (subscriber, id, body) => send(subscriber, id, body),
    delay,
    log: (message, fields) => logger.info(message, fields),
  });
  return (event) => deliver(event.Records);
}

/**
 * `npm start`'s delivery (scripts/lib/local-events.mjs): the same batch handler and sender, to
 * the one subscriber WEBHOOK_URL names (http and loopback allowed, as nowhere else), its local
 * queue's visibility set by `delay`.
 */
export function localWebhookDelivery(
  subscriber: Subscriber,
  queue: Pick<QueueDeliveryDeps, "delay" | "log" | "retryDelayMs">,
) {
  return queueDelivery({
    ...queue,
    subscribers: async () => [subscriber],
    send: (target, id, body) => sendWebhook(target, id, body, { local: true }),
  });
}
