// The composition root of the stream function: its settings read once (the bus, and the webhook
// queue when the stage has subscribers), the SDK clients it hands each post's change on with.
import { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { SQSClient } from "@aws-sdk/client-sqs";
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import type { StreamRecord } from "../events/queue-sender.js";
import { streamPublishing } from "../events/stream-publishing.js";
import { createLogger } from "../http/logger.js";

/** Where the stream function hands changes on, as config/events.cjs sets it. */
export interface PublishConfig {
  busName: string;
  /** Set with WEBHOOK_SUBSCRIBERS only. */
  queueUrl: string | undefined;
  region: string;
}

/** EVENT_BUS_NAME and, with subscribers, WEBHOOK_QUEUE_URL; throws when the bus is not named. */
export function readPublishConfig(env: NodeJS.ProcessEnv = process.env): PublishConfig {
  const busName = env.EVENT_BUS_NAME;
  if (!busName) throw new Error("EVENT_BUS_NAME is not set");
  const queueUrl = env.WEBHOOK_QUEUE_URL || undefined;
  return { busName, queueUrl, region: env.AWS_REGION || "us-east-1" };
}

/** The stream handler, over clients of its own: EventBridge's, and SQS's only with a queue. */
export function publishHandler(config: PublishConfig) {
  const clientSettings = {
    region: config.region,
    maxAttempts: 3,
    // A stalled attempt is abandoned and retried, so a request fails well inside the function's
    // 30 s and the batch reports it rather than timing out whole.
    requestHandler: {
      connectionTimeout: 1_000,
      requestTimeout: 5_000,
      throwOnRequestTimeout: true,
    },
  };
  const logger = createLogger("error");
  const publish = streamPublishing({
    bus: { client: new EventBridgeClient(clientSettings), name: config.busName },
    queue: config.queueUrl
      ? { client: new SQSClient(clientSettings), url: config.queueUrl }
      : undefined,
    log: (message, fields) => logger.error(message, fields),
  });
  // Lambda's record type differs from the SDK's in binary values only (base64 text, not bytes),
  // which no post holds.
  return (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
    publish(event as { Records: StreamRecord[] });
}
