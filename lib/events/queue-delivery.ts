// Webhook delivery: a batch of the FIFO queue's messages (each a post's event, grouped by post id)
// sent to every subscriber, in order within each post. The delivery function runs it on AWS, and
// `npm start` over its in-process queue (scripts/lib/local-events.mjs).
import type { SQSBatchResponse, SQSRecord } from "aws-lambda";
import { METRICS_NAMESPACE } from "../shared/names.js";
import { type ChangeRecord, type PostEvent, eventFromRecord, eventIdOf } from "./post-event.js";
import { retryDelayMs } from "./retry-schedule.js";
import type { DeliveryOutcome, Subscriber } from "./webhook-sender.js";

/** Events whose subscribers that took them are remembered, so a retry skips them. */
const REMEMBERED_EVENTS = 1_000;

/** SQS's longest visibility timeout: a longer pause is taken in steps of this. */
const MAX_VISIBILITY_SECONDS = 12 * 3600;

/** What delivery needs from the world: the subscribers, the sender, the queue, the log. */
export interface QueueDeliveryDeps {
  subscribers: () => Promise<Subscriber[]>;
  send: (subscriber: Subscriber, id: string, body: string) => Promise<DeliveryOutcome>;
  /** Keeps a failed message out of sight this long before it is tried again. */
  delay: (record: SQSRecord, seconds: number) => Promise<void>;
  log: (message: string, fields: Record<string, unknown>) => void;
  /** The pause after each failed try: retry-schedule.ts's unless `npm start`'s tests shorten it. */
  retryDelayMs?: (attempt: number) => number | undefined;
}

/** The batch handler's state: the subscribers answering 410 are left out from then on. */
class QueueDelivery {
  private readonly gone = new Set<string>();
  /** Per event id, the subscribers that took it (this instance's memory: at least once still). */
  private readonly tookIt = new Map<string, Set<string>>();

  constructor(private readonly deps: QueueDeliveryDeps) {}

  /** A batch: each message delivered in order; a failed one, and its post's later ones, retried. */
  async handle(records: SQSRecord[]): Promise<SQSBatchResponse> {
    const failures: SQSBatchResponse["batchItemFailures"] = [];
    const blocked = new Set<string>();
    for (const record of records) {
      const group = record.attributes.MessageGroupId ?? "";
      // A post's later event waits for its earlier one: it fails with it and comes back after it.
      if (blocked.has(group) || !(await this.deliver(record))) {
        blocked.add(group);
        failures.push({ itemIdentifier: record.messageId });
        const schedule = this.deps.retryDelayMs ?? retryDelayMs;
        const pause = schedule(Number(record.attributes.ApproximateReceiveCount));
        if (pause !== undefined) {
          await this.deps.delay(record, Math.min(Math.ceil(pause / 1000), MAX_VISIBILITY_SECONDS));
        }
      }
    }
    return { batchItemFailures: failures };
  }

  /** Sends one message's event to every subscriber still on delivery; true when all took it. */
  private async deliver(record: SQSRecord): Promise<boolean> {
    const event = eventOfMessage(record.body);
    if (!event) return true;
    const id = eventIdOf(event);
    const body = JSON.stringify(event);
    const took = this.tookIt.get(id) ?? new Set<string>();
    const targets = (await this.deps.subscribers()).filter(
      ({ url }) => !this.gone.has(url) && !took.has(url),
    );
    const outcomes = await Promise.all(targets.map((target) => this.deps.send(target, id, body)));
    outcomes.forEach((outcome, i) => this.note(outcome, (targets[i] as Subscriber).url, id));
    const failed = outcomes.some((outcome) => outcome.result === "failed");
    if (failed) this.remember(id, took, targets, outcomes);
    else this.tookIt.delete(id);
    return !failed;
  }

  /** Keeps which subscribers took a failed event, so its retry goes to the others only. */
  private remember(
    id: string,
    took: Set<string>,
    targets: Subscriber[],
    outcomes: DeliveryOutcome[],
  ) {
    outcomes.forEach((outcome, i) => {
      if (outcome.result === "delivered") took.add((targets[i] as Subscriber).url);
    });
    this.tookIt.delete(id);
    this.tookIt.set(id, took);
    // Oldest first: a Map keeps insertion order.
    for (const old of this.tookIt.keys()) {
      if (this.tookIt.size <= REMEMBERED_EVENTS) break;
      this.tookIt.delete(old);
    }
  }

  /** Logs a failure; takes a subscriber that answered 410 off delivery, with a metric. */
  private note(outcome: DeliveryOutcome, url: string, webhookId: string): void {
    const fields = { webhookId, subscriber: url, detail: outcome.detail };
    if (outcome.result === "gone") {
      this.gone.add(url);
      this.deps.log("webhook subscriber answered 410 Gone: taken off delivery", {
        ...fields,
        _aws: emf("WebhookSubscriberGone"),
        WebhookSubscriberGone: 1,
      });
    } else if (outcome.result === "failed") {
      this.deps.log("webhook delivery failed", {
        ...fields,
        _aws: emf("WebhookFailures"),
        WebhookFailures: 1,
      });
    }
  }
}

/**
 * A message's event: the event the stream function queued, or, from a message holding a stream
 * record instead (a dead letter may hold either), the event it maps to.
 */
function eventOfMessage(body: string): PostEvent | undefined {
  const message = JSON.parse(body) as Partial<PostEvent> & ChangeRecord;
  return message.type && message.data ? (message as PostEvent) : eventFromRecord(message);
}

/** Builds the batch handler over its dependencies. */
export function queueDelivery(deps: QueueDeliveryDeps) {
  const delivery = new QueueDelivery(deps);
  return (records: SQSRecord[]) => delivery.handle(records);
}

/** CloudWatch's embedded metric format for one count. */
const emf = (name: string) => ({
  Timestamp: Date.now(),
  CloudWatchMetrics: [
    { Namespace: METRICS_NAMESPACE, Dimensions: [[]], Metrics: [{ Name: name, Unit: "Count" }] },
  ],
});
