// The webhook queue under `npm start`, in this process: an SQS FIFO queue as the delivery function
// sees it. SendMessageBatch's request and answer (so lib/events/queue-sender.ts sends to it as to
// SQS), message groups (a group's messages handed out one at a time, in the order sent),
// visibility timeouts, the receive count, and the redrive to the dead letters of a message already
// received maxReceiveCount times, as config/events.cjs sets the queue on AWS. No deduplication:
// the local stream reader hands each record on once, and a restart begins with an empty queue.
import { createHash, randomUUID } from "node:crypto";

/** @typedef {import("aws-lambda").SQSRecord} SQSRecord */
/** @typedef {import("@aws-sdk/client-sqs").SendMessageBatchRequestEntry} Entry */
/** @typedef {"deleted" | "dead-lettered"} Removal How a message left the queue. */

/**
 * @typedef {object} Message
 * @property {string} messageId
 * @property {string} body
 * @property {string} group
 * @property {string | undefined} deduplicationId
 * @property {number} sequence
 * @property {number} sentAt
 * @property {number} receiveCount
 * @property {number | undefined} firstReceivedAt
 * @property {number} visibleAt When it may be received (again).
 * @property {string | undefined} receiptHandle Of its latest receive: only that one acts on it.
 */

/**
 * @typedef {object} QueueOptions
 * @property {number} visibilityTimeoutMs How long a received message stays out of sight.
 * @property {number} maxReceiveCount Receives before the next one moves it to the dead letters.
 * @property {(record: SQSRecord, how: Removal) => void} onRemoved
 * @property {() => number} [now] The clock, in ms.
 */

const md5 = (/** @type {string} */ text) => createHash("md5").update(text).digest("hex");

export class LocalFifoQueue {
  /** Each group's messages, oldest first; a group goes once empty. @type {Map<string, Message[]>} */
  #groups = new Map();
  #sequence = 0;
  /** @type {Required<QueueOptions>} */
  #options;

  constructor(/** @type {QueueOptions} */ options) {
    this.#options = { now: Date.now, ...options };
  }

  /** SendMessageBatch: each entry queued at the end of its group; answers as SQS does. */
  sendMessageBatch(/** @type {{ Entries?: Entry[] }} */ { Entries = [] }) {
    const now = this.#options.now();
    const Successful = Entries.map((entry) => {
      /** @type {Message} */
      const message = {
        messageId: randomUUID(),
        body: entry.MessageBody ?? "",
        group: entry.MessageGroupId ?? "",
        deduplicationId: entry.MessageDeduplicationId,
        sequence: ++this.#sequence,
        sentAt: now,
        receiveCount: 0,
        firstReceivedAt: undefined,
        visibleAt: now,
        receiptHandle: undefined,
      };
      const messages = this.#groups.get(message.group) ?? [];
      messages.push(message);
      this.#groups.set(message.group, messages);
      const { messageId: MessageId, body, sequence } = message;
      return {
        Id: entry.Id,
        MessageId,
        MD5OfMessageBody: md5(body),
        SequenceNumber: `${sequence}`,
      };
    });
    return { Successful, Failed: [] };
  }

  /**
   * Up to `max` messages, the oldest of each group whose oldest is visible: a group with one in
   * flight, or waiting out a retry's pause, hands out none, so its order holds. A message already
   * received maxReceiveCount times goes to the dead letters instead, and the next one comes up.
   * @returns {SQSRecord[]}
   */
  receive(/** @type {number} */ max) {
    const { now: clock, maxReceiveCount, visibilityTimeoutMs } = this.#options;
    const now = clock();
    const received = [];
    for (const messages of [...this.#groups.values()]) {
      if (received.length === max) break;
      let oldest = messages[0];
      while (oldest && oldest.visibleAt <= now && oldest.receiveCount >= maxReceiveCount) {
        this.#remove(oldest, "dead-lettered");
        oldest = messages[0];
      }
      if (!oldest || oldest.visibleAt > now) continue;
      oldest.receiveCount += 1;
      oldest.firstReceivedAt ??= now;
      oldest.visibleAt = now + visibilityTimeoutMs;
      oldest.receiptHandle = randomUUID();
      received.push(this.#record(oldest));
    }
    return received;
  }

  /** ChangeMessageVisibility: out of sight `seconds` from now; false for a stale receipt. */
  changeVisibility(/** @type {string} */ receiptHandle, /** @type {number} */ seconds) {
    const message = this.#inFlight(receiptHandle);
    if (message) message.visibleAt = this.#options.now() + seconds * 1000;
    return message !== undefined;
  }

  /** DeleteMessage; false for a stale receipt (the message was received again since). */
  delete(/** @type {string} */ receiptHandle) {
    const message = this.#inFlight(receiptHandle);
    if (message) this.#remove(message, "deleted");
    return message !== undefined;
  }

  /** The message this receipt is the latest of. */
  #inFlight(/** @type {string} */ receiptHandle) {
    for (const messages of this.#groups.values()) {
      const found = messages.find((message) => message.receiptHandle === receiptHandle);
      if (found) return found;
    }
    return undefined;
  }

  #remove(/** @type {Message} */ message, /** @type {Removal} */ how) {
    const messages = this.#groups.get(message.group) ?? [];
    const at = messages.indexOf(message);
    if (at >= 0) messages.splice(at, 1);
    if (messages.length === 0) this.#groups.delete(message.group);
    this.#options.onRemoved(this.#record(message), how);
  }

  /** A message as Lambda hands it to the delivery function. @returns {SQSRecord} */
  #record(/** @type {Message} */ message) {
    return {
      messageId: message.messageId,
      receiptHandle: message.receiptHandle ?? "",
      body: message.body,
      attributes: {
        ApproximateReceiveCount: `${message.receiveCount}`,
        SentTimestamp: `${message.sentAt}`,
        SenderId: "npm-start",
        ApproximateFirstReceiveTimestamp: `${message.firstReceivedAt ?? ""}`,
        SequenceNumber: `${message.sequence}`,
        MessageGroupId: message.group,
        MessageDeduplicationId: message.deduplicationId,
      },
      messageAttributes: {},
      md5OfBody: md5(message.body),
      eventSource: "aws:sqs",
      eventSourceARN: "arn:aws:sqs:local:000000000000:webhooks.fifo",
      awsRegion: "local",
    };
  }
}
