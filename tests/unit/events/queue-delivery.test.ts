// Unit: the AWS delivery function's batch logic over fakes of the subscribers, the sender and
// the queue: ordering per post, retry pauses, 410s, storage items, and stream records as messages.
import { marshall } from "@aws-sdk/util-dynamodb";
import type { SQSRecord } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { eventFromRecord } from "../../../lib/events/post-event.js";
import { queueDelivery } from "../../../lib/events/queue-delivery.js";
import { RETRY_DELAYS_MS } from "../../../lib/events/retry-schedule.js";
import type { DeliveryOutcome } from "../../../lib/events/webhook-sender.js";

const post = (id: number, version: number) => {
  return { id, title: "t", content: "c", created_at: null, updated_at: null, version };
};
/** The stream record of an update of post `id`. */
const update = (id: number, version: number) => ({
  eventName: "MODIFY",
  dynamodb: { Keys: { id: { N: String(id) } }, NewImage: marshall(post(id, version)) },
});

/** A queue message holding the event of that update, as the stream function queues it. */
function message(id: number, version: number, receiveCount = 1): SQSRecord {
  return {
    messageId: `m-${id}-${version}`,
    receiptHandle: `r-${id}-${version}`,
    body: JSON.stringify(eventFromRecord(update(id, version))),
    attributes: { MessageGroupId: String(id), ApproximateReceiveCount: String(receiveCount) },
  } as unknown as SQSRecord;
}

function harness(answer: (url: string, id: string) => DeliveryOutcome["result"]) {
  const sent: string[] = [];
  const bodies: string[] = [];
  const delays: [string, number][] = [];
  const logged: string[] = [];
  const deliver = queueDelivery({
    subscribers: async () =>
      ["https://a.example/", "https://b.example/"].map((url) => ({ url, secrets: [] })),
    send: async (subscriber, id, body) => {
      sent.push(`${subscriber.url} ${id}`);
      bodies.push(body);
      const result = answer(subscriber.url, id);
      return { result, detail: result };
    },
    delay: async (record, seconds) => {
      delays.push([record.messageId, seconds]);
    },
    log: (line) => logged.push(line),
  });
  return { deliver, sent, bodies, delays, logged };
}

describe("queueDelivery", () => {
  it("sends every message to every subscriber and reports no failure when all take it", async () => {
    const { deliver, sent } = harness(() => "delivered");
    expect(await deliver([message(1, 5), message(2, 9)])).toEqual({ batchItemFailures: [] });
    expect(sent).toEqual([
      "https://a.example/ msg_post1v5",
      "https://b.example/ msg_post1v5",
      "https://a.example/ msg_post2v9",
      "https://b.example/ msg_post2v9",
    ]);
  });

  it("fails a post's later message with its earlier one, but not another post's", async () => {
    const { deliver, sent, delays } = harness((url, id) =>
      url === "https://b.example/" && id === "msg_post1v5" ? "failed" : "delivered",
    );
    const batch = [message(1, 5, 3), message(1, 6), message(2, 9)];
    expect(await deliver(batch)).toEqual({
      batchItemFailures: [{ itemIdentifier: "m-1-5" }, { itemIdentifier: "m-1-6" }],
    });
    expect(sent.filter((line) => line.includes("msg_post1v6"))).toEqual([]);
    expect(sent).toContain("https://a.example/ msg_post2v9");
    // The third receive failed: the next try waits the schedule's third pause.
    expect(delays[0]).toEqual(["m-1-5", (RETRY_DELAYS_MS[2] as number) / 1000]);
    // After the last try no pause is set: the queue dead-letters the message.
    const pauses = delays.length;
    const last = await deliver([message(1, 5, RETRY_DELAYS_MS.length + 1)]);
    expect([last.batchItemFailures.length, delays.length]).toEqual([1, pauses]);
  });

  it("retries a failed event only to the subscribers that did not take it", async () => {
    let fail = true;
    const { deliver, sent } = harness((url) =>
      url === "https://b.example/" && fail ? "failed" : "delivered",
    );
    expect((await deliver([message(1, 5)])).batchItemFailures).toHaveLength(1);
    fail = false;
    expect(await deliver([message(1, 5, 2)])).toEqual({ batchItemFailures: [] });
    expect(sent).toEqual([
      "https://a.example/ msg_post1v5",
      "https://b.example/ msg_post1v5",
      "https://b.example/ msg_post1v5",
    ]);
  });

  it("takes a subscriber answering 410 off delivery, with a log line", async () => {
    const { deliver, sent, logged } = harness((url) =>
      url === "https://a.example/" ? "gone" : "delivered",
    );
    expect(await deliver([message(1, 5), message(1, 6)])).toEqual({ batchItemFailures: [] });
    expect(sent.filter((line) => line.startsWith("https://a.example/"))).toEqual([
      "https://a.example/ msg_post1v5",
    ]);
    expect(logged).toEqual([expect.stringContaining("410 Gone")]);
  });

  it("delivers a message holding a stream record (a dead letter may) as the event it maps to", async () => {
    const { deliver, sent, bodies } = harness(() => "delivered");
    const record = { ...message(4, 7), body: JSON.stringify(update(4, 7)) };
    expect(await deliver([message(4, 7)])).toEqual({ batchItemFailures: [] });
    expect(await deliver([record])).toEqual({ batchItemFailures: [] });
    expect(sent.slice(2)).toEqual(sent.slice(0, 2));
    expect(bodies.slice(2)).toEqual(bodies.slice(0, 2));
    expect(JSON.parse(bodies[0] ?? "")).toEqual(eventFromRecord(update(4, 7)));
  });

  it("skips the table's own items", async () => {
    const { deliver, sent } = harness(() => "delivered");
    const counter = {
      ...message(1, 1),
      body: JSON.stringify({ eventName: "MODIFY", dynamodb: { Keys: { id: { N: "0" } } } }),
    };
    expect(await deliver([counter])).toEqual({ batchItemFailures: [] });
    expect(sent).toEqual([]);
  });
});
