// The webhook queue (SQS FIFO): each change of a post as one message holding its event (the bus's,
// thin past 200,000 bytes, so every message fits SQS's 256 KB), in the post's message group (its
// id), deduplicated by the stream record's id, sent with SendMessageBatch.
import {
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import type { FailureLog } from "./bus-sender.js";
import type { ChangeRecord, PostEvent } from "./post-event.js";
import { type RequestSend, requestBatches, sendInOrder } from "./request-batches.js";

/** What one request holds: 10 messages, and 256 KB of them added up, within SQS's batch limit. */
export const SEND_MESSAGE_BATCH_LIMITS = { maxEntries: 10, maxBytes: 256 * 1024 };

/** The queue and the client that sends to it. */
export interface QueueTarget {
  client: SQSClient;
  url: string;
}

/** A record of the stream, with the ids a queue message is named by. */
export type StreamRecord = ChangeRecord & {
  eventID?: string;
  dynamodb?: ChangeRecord["dynamodb"] & { SequenceNumber?: string };
};

/** One SendMessageBatch request; answers the entries it did not take. */
const sendRequest =
  (queue: QueueTarget, log: FailureLog): RequestSend<SendMessageBatchRequestEntry> =>
  async (entries) => {
    const command = new SendMessageBatchCommand({ QueueUrl: queue.url, Entries: entries });
    const answer = await queue.client.send(command);
    const taken = new Set((answer.Successful ?? []).map(({ Id }) => Id));
    const refused = entries.flatMap((entry, i) => (taken.has(entry.Id) ? [] : [i]));
    if (refused.length > 0) {
      const codes = (answer.Failed ?? []).map(({ Code }) => Code ?? "unknown");
      log("post changes not queued for webhooks", { failed: refused.length, codes });
    }
    return refused;
  };

/**
 * Queues each post's change, in order, at most one message of a post per request (so a refused
 * one is never overtaken by its post's next); answers the stream index (`at`) of the first change
 * not queued, or undefined when every one was.
 */
export function sendToQueue(
  queue: QueueTarget,
  changes: { at: number; record: StreamRecord; event: PostEvent }[],
  log: FailureLog,
): Promise<number | undefined> {
  const items = changes.map(({ at, record, event }) => {
    const body = JSON.stringify(event);
    const entry = {
      Id: String(at),
      MessageBody: body,
      MessageGroupId: String(event.data.id),
      // The stream's id of the change: sent again within SQS's 5 minutes, it is dropped as a duplicate.
      MessageDeduplicationId: record.eventID ?? record.dynamodb?.SequenceNumber,
    };
    return { at, entry, bytes: Buffer.byteLength(body), group: entry.MessageGroupId };
  });
  return sendInOrder(
    requestBatches(items, SEND_MESSAGE_BATCH_LIMITS),
    sendRequest(queue, log),
    (error) => log("SendMessageBatch failed", { error: String(error) }),
  );
}
