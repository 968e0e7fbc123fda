// Unit: the stream function's batch: each post change to the bus and the webhook queue, storage
// items to neither, the first record either refused as the one failure (mocked EventBridge, SQS).
import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import { SQSClient, SendMessageBatchCommand } from "@aws-sdk/client-sqs";
import { marshall } from "@aws-sdk/util-dynamodb";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import type { PostEvent } from "../../../lib/events/post-event.js";
import type { StreamRecord } from "../../../lib/events/queue-sender.js";
import { streamPublishing } from "../../../lib/events/stream-publishing.js";

const eventBridgeClient = new EventBridgeClient({ region: "eu-west-1" });
const sqsClient = new SQSClient({ region: "eu-west-1" });
const eventBridge = mockClient(eventBridgeClient);
const sqs = mockClient(sqsClient);
const bus = { client: eventBridgeClient, name: "bus" };
const queue = { client: sqsClient, url: "https://sqs.example/q.fifo" };
const log = () => undefined;
const publish = streamPublishing({ bus, queue, log });

const post = (id: number, version: number) => {
  return { id, title: "t", content: "c", created_at: null, updated_at: null, version };
};
let sequence = 0;
/** A stream record of `eventName` on item `id`, with the item after (or, removed, before) it. */
function record(eventName: "INSERT" | "MODIFY" | "REMOVE", item: { id: number }): StreamRecord {
  sequence += 1;
  const image = { [eventName === "REMOVE" ? "OldImage" : "NewImage"]: marshall(item) };
  return {
    eventID: `ev${sequence}`,
    eventName,
    dynamodb: {
      ApproximateCreationDateTime: 1_795_000_000,
      SequenceNumber: String(1000 + sequence),
      Keys: marshall({ id: item.id }),
      ...image,
    },
  };
}
const onBus = (): PostEvent[] =>
  eventBridge
    .commandCalls(PutEventsCommand)
    .flatMap(({ args }) => args[0].input.Entries ?? [])
    .map((entry) => JSON.parse(entry.Detail ?? "{}"));
const queued = () =>
  sqs
    .commandCalls(SendMessageBatchCommand)
    .flatMap(({ args }) => args[0].input.Entries ?? [])
    .map((entry) => `${entry.MessageGroupId}:${entry.MessageDeduplicationId}`);

beforeEach(() => {
  eventBridge.reset();
  sqs.reset();
  eventBridge.on(PutEventsCommand).callsFake(({ Entries = [] }) => ({
    FailedEntryCount: 0,
    Entries: Entries.map((_: unknown, i: number) => ({ EventId: `e${i}` })),
  }));
  sqs.on(SendMessageBatchCommand).callsFake(({ Entries = [] }) => ({
    Successful: Entries.map(({ Id }: { Id: string }) => ({ Id })),
    Failed: [],
  }));
});

describe("streamPublishing", () => {
  it("makes one event per stored change, in order, with the post's version; none for storage items", async () => {
    const records = [
      record("INSERT", post(5, 100)),
      record("MODIFY", { id: 0, last_id: 5 } as never),
      record("MODIFY", post(5, 101)),
      record("MODIFY", { id: -2, changes: 4 } as never),
      record("REMOVE", post(5, 101)),
    ];
    expect(await publish({ Records: records })).toEqual({ batchItemFailures: [] });
    expect(onBus().map(({ type, version }) => [type, version])).toEqual([
      ["post.created", 100],
      ["post.updated", 101],
      ["post.deleted", 102],
    ]);
    expect(queued()).toEqual([0, 2, 4].map((i) => `5:${records[i]?.eventID}`));
  });

  it("reports the first record the bus refused (FailedEntryCount), or the queue if earlier", async () => {
    const records = [1, 2, 3, 4].map((id) => record("INSERT", post(id, 1)));
    const second = {
      batchItemFailures: [{ itemIdentifier: records[1]?.dynamodb?.SequenceNumber }],
    };
    const refusing = (at: number) => ({
      FailedEntryCount: 1,
      Entries: records.map((_, i) => (i === at ? { ErrorCode: "InternalFailure" } : {})),
    });
    eventBridge.on(PutEventsCommand).resolves(refusing(1));
    expect(await publish({ Records: records })).toEqual(second);
    eventBridge.on(PutEventsCommand).resolves(refusing(2));
    sqs.on(SendMessageBatchCommand).callsFake(({ Entries = [] }) => ({
      Successful: Entries.slice(0, 1).map(({ Id }: { Id: string }) => ({ Id })),
      Failed: Entries.slice(1).map(({ Id }: { Id: string }) => ({ Id, Code: "InternalError" })),
    }));
    expect(await publish({ Records: records })).toEqual(second);
  });
});
