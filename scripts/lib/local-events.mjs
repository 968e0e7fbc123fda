// `npm start`'s events, through the code the AWS functions run: the posts table's stream in
// DynamoDB Local read where the event source mapping reads it on AWS (local-stream.mjs), each
// change queued as the stream function queues it (lib/events/queue-sender.ts) on a FIFO queue in
// this process (local-queue.mjs), and each message handed to the delivery function's batch handler
// (lib/events/queue-delivery.ts), whose retries set the queue's visibility and whose last failure
// leaves the message to the queue's redrive, into a dead-letter file. A change's place in the
// stream is passed only once its message is deleted or dead-lettered.
import { appendFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { LocalFifoQueue } from "./local-queue.mjs";
import { startStreamReader } from "./local-stream.mjs";

/**
 * @typedef {typeof import("../../lib/events/index.js")
 *   & typeof import("../../lib/events/queue-sender.js")
 *   & typeof import("../../lib/events/webhook-sender.js")
 *   & typeof import("../../lib/app/webhooks.js")} LibCode
 */
/** @typedef {import("aws-lambda").SQSRecord} SQSRecord */
/** @typedef {import("@aws-sdk/client-sqs").SQSClient} SQSClient */
/** @typedef {import("./local-stream.mjs").StreamRecord} StreamRecord */
/** @typedef {Pick<LibCode, "retryDelayMs" | "DELIVERY_ATTEMPTS">} RetrySchedule */

/** What the local path runs of lib/. */
const LIB_MODULES = [
  "lib/events/index.ts",
  "lib/events/queue-sender.ts",
  "lib/events/webhook-sender.ts",
  "lib/app/webhooks.ts",
];
/** How often the queue is polled for messages; at most this many a poll (ReceiveMessage's 10). */
const POLL_EVERY_MS = 100;
const RECEIVE_MAX = 10;

/**
 * lib/'s modules built by esbuild, as the functions' bundles are, so the local path runs their
 * code. Packages stay where they are installed, imported by absolute URL: a data: module resolves
 * nothing relative to itself.
 */
async function loadLibCode() {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  /** @type {esbuild.Plugin} */
  const packagesInPlace = {
    name: "packages-in-place",
    setup: (build) =>
      build.onResolve({ filter: /^[^./]/ }, ({ path }) => ({
        path: import.meta.resolve(path),
        external: true,
      })),
  };
  const contents = LIB_MODULES.map((path) => `export * from "./${path}";`).join("\n");
  const { outputFiles } = await esbuild.build({
    stdin: { contents, resolveDir: root, loader: "ts" },
    bundle: true,
    write: false,
    platform: "node",
    format: "esm",
    plugins: [packagesInPlace],
  });
  const source = Buffer.from(outputFiles?.[0]?.contents ?? []).toString("base64");
  return /** @type {LibCode} */ (await import(`data:text/javascript;base64,${source}`));
}

/** A message's event in a log line: its type, post, version and webhook-id. */
function described(/** @type {LibCode} */ code, /** @type {SQSRecord} */ record) {
  const event = JSON.parse(record.body);
  return `event ${event.type} #${event.data.id} v${event.version} (${code.eventIdOf(event)})`;
}

/**
 * The stream function's step: a page's changes queued by queue-sender.ts, as on AWS. `handOn`
 * answers a promise per record, settled by `settle` once its message has left the queue (a
 * storage item's, which makes no message, at once).
 */
function streamStep(
  /** @type {LibCode} */ code,
  /** @type {LocalFifoQueue} */ queue,
  /** @type {(line: string) => void} */ log,
) {
  /** Per stream record id (queue-sender.ts's deduplication id of its message), its settling. */
  const waiting = new Map();
  const client = {
    send: async (/** @type {any} */ command) => queue.sendMessageBatch(command.input),
  };
  const target = {
    url: "npm-start",
    client: /** @type {SQSClient} */ (/** @type {unknown} */ (client)),
  };
  const handOn = async (/** @type {StreamRecord[]} */ records) => {
    const changes = records.flatMap((record, at) => {
      const event = code.eventFromRecord(record);
      return event ? [{ at, record, event }] : [];
    });
    /** @type {Promise<unknown>[]} */
    const done = records.map(() => Promise.resolve());
    for (const { at, record } of changes) {
      const id = record.eventID ?? record.dynamodb?.SequenceNumber;
      done[at] = new Promise((resolve) => waiting.set(id, resolve));
    }
    const notQueued = await code.sendToQueue(target, changes, (message, fields) =>
      log(`events: ${message} ${JSON.stringify(fields)}`),
    );
    // Never so: the local queue takes every message. Thrown, the page is read again.
    if (notQueued !== undefined) throw new Error("the local queue refused a change");
    return done;
  };
  const settle = (/** @type {SQSRecord} */ record) => {
    const id = record.attributes.MessageDeduplicationId;
    waiting.get(id)?.();
    waiting.delete(id);
  };
  return { handOn, settle };
}

/**
 * The delivery function's step: one message an invocation, as its event source mapping hands them
 * (batchSize 1, serverless.yml), to lib/app/webhooks.ts's local composition of queue-delivery.ts;
 * deleted unless reported failed, and all of it failed when the handler throws.
 * @param {LibCode} code
 * @param {LocalFifoQueue} queue
 * @param {{ subscriber: { url: string, secrets: string[] }, schedule: RetrySchedule | undefined,
 *   log: (line: string) => void }} options
 */
function deliveryStep(code, queue, { subscriber, schedule, log }) {
  const deliver = code.localWebhookDelivery(subscriber, {
    // The AWS function's ChangeMessageVisibility, on the local queue.
    delay: async (record, seconds) => {
      queue.changeVisibility(record.receiptHandle, seconds);
      const next = Number(record.attributes.ApproximateReceiveCount) + 1;
      log(`${described(code, record)}: try ${next} in ${seconds} s`);
    },
    log: (message, fields) => log(`${fields.webhookId}: ${message}: ${fields.detail}`),
    retryDelayMs: schedule?.retryDelayMs,
  });
  return async (/** @type {SQSRecord} */ record) => {
    const answer = await deliver([record]).catch((error) => {
      log(`events: delivering failed: ${error}`);
      return { batchItemFailures: [{ itemIdentifier: record.messageId }] };
    });
    const failed = answer.batchItemFailures.some(
      ({ itemIdentifier }) => itemIdentifier === record.messageId,
    );
    if (!failed) queue.delete(record.receiptHandle);
  };
}

/**
 * Starts reading the stream and delivering to the subscriber; `stop()` ends both. `schedule`
 * (retry-schedule.ts's by default) shortens the retries for a test, and `visibilityTimeoutMs`
 * how long a message whose last try failed waits for its redrive.
 * @param {{ endpoint: string, tableName: string, positionFile: string, deadLetterFile: string,
 *   subscriber: { url: string, secrets: string[] }, log?: (line: string) => void,
 *   schedule?: RetrySchedule, visibilityTimeoutMs?: number }} options
 */
export async function startLocalEvents(options) {
  const { subscriber, deadLetterFile, log = console.log } = options;
  const code = await loadLibCode();
  const refused = code.refusedUrl(subscriber.url, true);
  if (refused) throw new Error(`WEBHOOK_URL ${refused}`);
  for (const secret of subscriber.secrets) code.secretKey(secret);
  // Without a schedule given, queue-delivery.ts keeps its own, and the redrive its count of tries.
  const { schedule } = options;
  const removed = async (/** @type {SQSRecord} */ record, /** @type {string} */ how) => {
    const tries = record.attributes.ApproximateReceiveCount;
    if (how === "dead-lettered") {
      await appendFile(deadLetterFile, `${JSON.stringify(record)}\n`);
      log(`${described(code, record)}: dead-lettered to ${deadLetterFile} after ${tries} tries`);
    } else log(`${described(code, record)}: done`);
    stream.settle(record);
  };
  const queue = new LocalFifoQueue({
    // Longer than one delivery may take (the sender's limit), so none is received twice at once.
    visibilityTimeoutMs: options.visibilityTimeoutMs ?? 2 * code.DELIVERY_TIMEOUT_MS,
    maxReceiveCount: (schedule ?? code).DELIVERY_ATTEMPTS,
    onRemoved: (record, how) =>
      void removed(record, how).catch((error) => log(`events: ${error.message}`)),
  });
  const stream = streamStep(code, queue, log);
  const invoke = deliveryStep(code, queue, { subscriber, schedule, log });
  const reader = await startStreamReader({ ...options, handOn: stream.handOn, log });
  const stopping = new AbortController();
  const polling = (async () => {
    for (; !stopping.signal.aborted; await sleep(POLL_EVERY_MS)) {
      for (const record of queue.receive(RECEIVE_MAX)) void invoke(record);
    }
  })();
  return {
    stop: async () => {
      stopping.abort();
      await Promise.all([polling, reader.stop()]);
    },
  };
}
