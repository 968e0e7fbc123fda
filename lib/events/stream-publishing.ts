// The stream function on AWS: a batch of the posts table's stream records, as Lambda's event source
// mapping hands them over, each change of a post mapped once to its event, which is put on the
// stage's bus and, with subscribers, queued for its webhooks. The first record not handed on is
// reported, so the mapping retries from it and nothing after it is taken as done: a post's
// changes stay in order.
import type { DynamoDBBatchResponse } from "aws-lambda";
import { type BusTarget, type FailureLog, putOnBus } from "./bus-sender.js";
import { eventFromRecord } from "./post-event.js";
import { type QueueTarget, type StreamRecord, sendToQueue } from "./queue-sender.js";

/** Where a batch's changes go, and the log of what could not go there. */
export interface StreamPublishingDeps {
  bus: BusTarget;
  /** The webhook queue, with WEBHOOK_SUBSCRIBERS only. */
  queue?: QueueTarget;
  log: FailureLog;
}

/** Builds the batch handler: a stream batch in, the first record not handed on out. */
export function streamPublishing(deps: StreamPublishingDeps) {
  return async (batch: { Records: StreamRecord[] }): Promise<DynamoDBBatchResponse> => {
    const records = batch.Records;
    // A record that makes no event (a storage item, should the filter let one through) is done.
    const changes = records.flatMap((record, at) => {
      const event = eventFromRecord(record);
      return event ? [{ at, record, event }] : [];
    });
    const stops = await Promise.all([
      putOnBus(deps.bus, changes, deps.log),
      deps.queue && sendToQueue(deps.queue, changes, deps.log),
    ]);
    const first = Math.min(...stops.map((at) => at ?? records.length));
    const failed = records[first];
    if (!failed) return { batchItemFailures: [] };
    // No sequence number (never seen) makes the mapping retry the whole batch: safe, only slower.
    return { batchItemFailures: [{ itemIdentifier: failed.dynamodb?.SequenceNumber ?? "" }] };
  };
}
