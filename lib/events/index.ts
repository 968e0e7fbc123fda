// What a reader of the posts table's stream needs, in one module: the mapping, the signing, the
// sending and the retry schedule. `npm start` loads it built (scripts/lib/local-events.mjs).
export {
  eventFromRecord,
  eventIdOf,
  postIdOf,
  type ChangeRecord,
  type PostEvent,
} from "./post-event.js";
export { DELIVERY_ATTEMPTS, retryDelayMs } from "./retry-schedule.js";
export { signatureMatches, secretKey, webhookHeaders } from "./signature.js";
export {
  refusedUrl,
  sendWebhook,
  type DeliveryOutcome,
  type Subscriber,
} from "./webhook-sender.js";
