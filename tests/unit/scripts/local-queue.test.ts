// Unit: `npm start`'s webhook queue (scripts/lib/local-queue.mjs) keeps SQS FIFO's rules: groups in
// order one at a time, visibility, receive counts, the redrive, over a clock the test moves.
import type { SQSRecord } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { LocalFifoQueue } from "../../../scripts/lib/local-queue.mjs";

const VISIBILITY_MS = 30_000;

function harness(maxReceiveCount = 3) {
  const clock = { now: 1_000 };
  const removed: [string, string][] = [];
  const queue = new LocalFifoQueue({
    visibilityTimeoutMs: VISIBILITY_MS,
    maxReceiveCount,
    onRemoved: (record: SQSRecord, how: string) => removed.push([record.body, how]),
    now: () => clock.now,
  });
  /** Queues each body in the group named by its first character. */
  const send = (...bodies: string[]) =>
    queue.sendMessageBatch({
      Entries: bodies.map((body, i) => ({
        Id: String(i),
        MessageBody: body,
        MessageGroupId: body.charAt(0),
        MessageDeduplicationId: `dedup-${body}`,
      })),
    });
  const bodies = (records: SQSRecord[]) => records.map((record) => record.body);
  return { queue, clock, removed, send, bodies };
}

describe("LocalFifoQueue", () => {
  it("takes every entry by its Id, hands out at most `max`, each group's oldest, none of a group with one in flight", () => {
    const { queue, send, bodies, removed } = harness();
    const answer = send("a1", "a2", "b1", "c1");
    expect(answer.Failed).toEqual([]);
    expect(answer.Successful.map((taken) => taken.Id)).toEqual(["0", "1", "2", "3"]);
    expect(new Set(answer.Successful.map((taken) => taken.MessageId)).size).toBe(4);
    const first = queue.receive(2);
    expect(bodies(first)).toEqual(["a1", "b1"]);
    expect(bodies(queue.receive(10))).toEqual(["c1"]);
    expect(bodies(queue.receive(10))).toEqual([]);
    expect(queue.delete((first[0] as SQSRecord).receiptHandle)).toBe(true);
    expect(removed).toEqual([["a1", "deleted"]]);
    expect(bodies(queue.receive(10))).toEqual(["a2"]);
  });

  it("hands out Lambda's record shape, again after its visibility timeout with a new receipt, counting receives", () => {
    const { queue, clock, send, removed } = harness();
    send("a1");
    const [first] = queue.receive(10) as [SQSRecord];
    expect(first).toMatchObject({
      body: "a1",
      eventSource: "aws:sqs",
      attributes: { ApproximateReceiveCount: "1", MessageGroupId: "a" },
    });
    expect(first.attributes.MessageDeduplicationId).toBe("dedup-a1");
    expect(first.md5OfBody).toMatch(/^[0-9a-f]{32}$/);
    expect(first.receiptHandle).not.toBe("");
    clock.now += VISIBILITY_MS - 1;
    expect(queue.receive(10)).toEqual([]);
    clock.now += 1;
    const [again] = queue.receive(10) as [SQSRecord];
    expect(again.attributes.ApproximateReceiveCount).toBe("2");
    // The first receipt acts no more.
    expect(queue.delete(first.receiptHandle)).toBe(false);
    expect(queue.changeVisibility(first.receiptHandle, 0)).toBe(false);
    expect(removed).toEqual([]);
    expect(queue.delete(again.receiptHandle)).toBe(true);
  });

  it("keeps a message out of sight as long as a visibility change says, from the change on", () => {
    const { queue, clock, send } = harness();
    send("a1");
    const [record] = queue.receive(10) as [SQSRecord];
    clock.now += 500;
    expect(queue.changeVisibility(record.receiptHandle, 2)).toBe(true);
    clock.now += 1_999;
    expect(queue.receive(10)).toEqual([]);
    clock.now += 1;
    expect(queue.receive(10)).toHaveLength(1);
  });

  it("moves a message received maxReceiveCount times to the dead letters at its next receive, and its group goes on", () => {
    const { queue, clock, send, bodies, removed } = harness(2);
    send("a1", "a2");
    expect(bodies(queue.receive(10))).toEqual(["a1"]);
    clock.now += VISIBILITY_MS;
    const [last] = queue.receive(10);
    expect(last?.attributes.ApproximateReceiveCount).toBe("2");
    expect(removed).toEqual([]);
    clock.now += VISIBILITY_MS - 1;
    expect(queue.receive(10)).toEqual([]);
    clock.now += 1;
    expect(bodies(queue.receive(10))).toEqual(["a2"]);
    expect(removed).toEqual([["a1", "dead-lettered"]]);
  });
});
