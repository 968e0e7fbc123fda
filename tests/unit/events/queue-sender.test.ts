// Unit: post changes queued for webhooks with SendMessageBatch (event as body, post's group, record
// id as deduplication id, one message of a post a request), over a mocked SQS client.
import { SQSClient, SendMessageBatchCommand } from "@aws-sdk/client-sqs";
import { marshall } from "@aws-sdk/util-dynamodb";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { eventFromRecord } from "../../../lib/events/post-event.js";
import { type StreamRecord, sendToQueue } from "../../../lib/events/queue-sender.js";

const client = new SQSClient({ region: "eu-west-1" });
const sqs = mockClient(client);
const queue = { client, url: "https://sqs.example/q.fifo" };
const logged: [string, Record<string, unknown>][] = [];
const log = (message: string, fields: Record<string, unknown>) => logged.push([message, fields]);

const post = (id: number, version: number) => {
  return { id, title: "t", content: "c", created_at: null, updated_at: null, version };
};
/** The stream's record of an update of post `id` to `version`. */
const update = (id: number, version: number): StreamRecord => ({
  eventID: `ev-${id}-${version}`,
  eventName: "MODIFY",
  dynamodb: {
    ApproximateCreationDateTime: 1_795_000_000,
    SequenceNumber: `${version}00`,
    Keys: marshall({ id }),
    NewImage: marshall(post(id, version)),
    OldImage: marshall(post(id, version - 1)),
  },
});
const changes = (records: StreamRecord[]) =>
  records.map((record, at) => ({ at, record, event: eventFromRecord(record)! }));
/** Each request's messages as `<group>:<deduplication id>`. */
const requests = () =>
  sqs
    .commandCalls(SendMessageBatchCommand)
    .map(({ args }) =>
      (args[0].input.Entries ?? []).map((e) => `${e.MessageGroupId}:${e.MessageDeduplicationId}`),
    );

beforeEach(() => {
  sqs.reset();
  sqs.on(SendMessageBatchCommand).callsFake(({ Entries = [] }) => ({
    Successful: Entries.map(({ Id }: { Id: string }) => ({ Id })),
    Failed: [],
  }));
  logged.length = 0;
});

describe("sendToQueue", () => {
  it("queues each record's event, as the bus gets it, in its post's group, named by the record's id", async () => {
    // Never two changes of one post in a request, and in order.
    const records = [update(7, 2), update(8, 5), update(7, 3), update(9, 1)];
    expect(await sendToQueue(queue, changes(records), log)).toBeUndefined();
    const inputs = sqs.commandCalls(SendMessageBatchCommand).map(({ args }) => args[0].input);
    expect(inputs.map((input) => input.QueueUrl)).toEqual([queue.url, queue.url]);
    expect(requests()).toEqual([
      ["7:ev-7-2", "8:ev-8-5"],
      ["7:ev-7-3", "9:ev-9-1"],
    ]);
    const entries = inputs.flatMap((input) => input.Entries ?? []);
    expect(entries.map((entry) => JSON.parse(entry.MessageBody ?? "{}"))).toEqual(
      records.map((record) => eventFromRecord(record)),
    );
  });

  it("sends at most 10 messages and 256 KB a request", async () => {
    const many = Array.from({ length: 12 }, (_, i) => update(i + 1, 1));
    await sendToQueue(queue, changes(many), log);
    expect(requests().map((messages) => messages.length)).toEqual([10, 2]);
    sqs.resetHistory();
    // Events of 150 KB: sent whole, but two are over 256 KB.
    const large = (id: number) => {
      const record = update(id, 1);
      record.dynamodb!.NewImage = marshall({ ...post(id, 1), content: "x".repeat(150_000) });
      return record;
    };
    await sendToQueue(queue, changes([large(1), large(2), update(3, 1), large(4)]), log);
    expect(requests()).toEqual([["1:ev-1-1"], ["2:ev-2-1", "3:ev-3-1"], ["4:ev-4-1"]]);
  });

  it("answers the first change SQS did not take, and sends nothing after its request", async () => {
    sqs.on(SendMessageBatchCommand).callsFake(({ Entries = [] }) => ({
      Successful: Entries.filter((_: unknown, i: number) => i !== 1).map(
        ({ Id }: { Id: string }) => ({ Id }),
      ),
      Failed: [{ Id: Entries[1].Id, Code: "InternalError", SenderFault: false }],
    }));
    const records = [update(1, 1), update(2, 1), update(1, 2)];
    expect(await sendToQueue(queue, changes(records), log)).toBe(1);
    expect(requests()).toHaveLength(1);
    expect(logged).toEqual([
      ["post changes not queued for webhooks", { failed: 1, codes: ["InternalError"] }],
    ]);
  });

  it("takes a message the answer names neither way, or a request that failed, as not queued", async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    expect(await sendToQueue(queue, changes([update(1, 1)]), log)).toBe(0);
    sqs.reset();
    sqs.on(SendMessageBatchCommand).rejects(new Error("AccessDenied"));
    expect(await sendToQueue(queue, changes([update(1, 1)]), log)).toBe(0);
    expect(logged.at(-1)).toEqual(["SendMessageBatch failed", { error: "Error: AccessDenied" }]);
  });
});
