// Lambda entry for the webhook queue (SQS FIFO, one message group per post): wired once per instance.
import { readWebhookConfig, webhookHandler } from "../lib/app/webhooks.js";

/** The function Lambda invokes. */
export const handler = webhookHandler(readWebhookConfig());
