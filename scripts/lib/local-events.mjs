// Local events: reads the posts table's stream in DynamoDB Local (turned on for a table made
// before events), maps each change with the code AWS runs (lib/events) and sends it to the webhook
// subscriber: signed, a post's events in order, retried as on AWS, dead-lettered to a file. Its
// position is kept in a file, so a restart neither replays nor misses.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { DescribeTableCommand, UpdateTableCommand } from "@aws-sdk/client-dynamodb";
import * as streamsApi from "@aws-sdk/client-dynamodb-streams";
import * as esbuild from "esbuild";
import { LOCAL_SDK_SETTINGS, localClient } from "./dynamodb-local.mjs";

/** @typedef {typeof import("../../lib/events/index.js")} EventsCode */
/** @typedef {import("../../lib/events/index.js").PostEvent} PostEvent */

/** lib/events built for Node as it is for Lambda, so the local path runs the same code. */
async function loadEventsCode() {
  const entry = fileURLToPath(new URL("../../lib/events/index.ts", import.meta.url));
  /** @type {esbuild.BuildOptions} */
  const options = { bundle: true, write: false, platform: "node", format: "esm" };
  const [built] = (await esbuild.build({ ...options, entryPoints: [entry] })).outputFiles ?? [];
  const source = Buffer.from(built?.contents ?? []).toString("base64");
  return /** @type {EventsCode} */ (await import(`data:text/javascript;base64,${source}`));
}

/** The table's stream, turned on (new and old images) if it has none; fresh: just turned on. */
async function ensureStream(/** @type {string} */ endpoint, /** @type {string} */ TableName) {
  const client = localClient(endpoint);
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName }));
    const arn = Table?.StreamSpecification?.StreamEnabled && Table.LatestStreamArn;
    if (arn) return { arn, fresh: false };
    const update = new UpdateTableCommand({
      TableName,
      StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
    });
    const { TableDescription } = await client.send(update);
    return { arn: String(TableDescription?.LatestStreamArn), fresh: true };
  } finally {
    client.destroy();
  }
}

/**
 * Starts reading the stream and delivering to the subscriber; `stop()` ends both.
 * @param {{ endpoint: string, tableName: string, positionFile: string, deadLetterFile: string,
 *   subscriber: { url: string, secrets: string[] }, log?: (line: string) => void }} options
 */
export async function startLocalEvents(options) {
  const { endpoint, subscriber, positionFile, deadLetterFile, log = console.log } = options;
  const code = await loadEventsCode();
  const refused = code.refusedUrl(subscriber.url, true);
  if (refused) throw new Error(`WEBHOOK_URL ${refused}`);
  for (const secret of subscriber.secrets) code.secretKey(secret);
  const stream = await ensureStream(endpoint, options.tableName);
  const streams = new streamsApi.DynamoDBStreamsClient({ ...LOCAL_SDK_SETTINGS, endpoint });
  const stopping = new AbortController();
  const { signal } = stopping;
  // A delivery queue per post: a post's event leaves once the one before it was done with, while
  // posts do not wait for each other. An event resolves true once done with (delivered, 410 Gone,
  // or dead-lettered), false when a stop ended its retries first.
  /** @type {Map<number, Promise<boolean>>} */
  const queues = new Map();
  let gone = false;
  const send = async (/** @type {PostEvent} */ event) => {
    const id = code.eventIdOf(event);
    const what = `event ${event.type} #${event.data.id} v${event.version} (${id})`;
    const body = JSON.stringify(event);
    for (let attempt = 1; !signal.aborted && !gone; attempt++) {
      const outcome = await code.sendWebhook(subscriber, id, body, { local: true });
      const delay = code.retryDelayMs(attempt);
      if (outcome.result === "delivered") log(`${what}: delivered`);
      else if (outcome.result === "gone") {
        gone = true;
        log(`${what}: the subscriber answered 410 Gone; no more deliveries to it`);
      } else if (delay === undefined) {
        await appendFile(deadLetterFile, `${JSON.stringify({ id, event })}\n`);
        log(`${what}: ${outcome.detail}; dead-lettered to ${deadLetterFile}`);
      } else {
        log(`${what}: ${outcome.detail}; try ${attempt + 1} in ${delay / 1000} s`);
        await sleep(delay, undefined, { signal }).catch(() => undefined);
        continue;
      }
      return true;
    }
    return !signal.aborted;
  };
  const deliver = (/** @type {PostEvent} */ event) => {
    const postId = event.data.id;
    const done = (queues.get(postId) ?? Promise.resolve(true)).then((ok) => ok && send(event));
    queues.set(postId, done);
    void done.then(() => queues.get(postId) === done && queues.delete(postId));
    return done;
  };
  // Every shard read in turn, parents before children. The position kept per shard is the last
  // record before which everything was done with, so an event still waiting for a retry at a stop
  // is read again on the next start.
  const kept = existsSync(positionFile) ? JSON.parse(readFileSync(positionFile, "utf8")) : {};
  /** @type {Record<string, string>} */
  const doneUpTo = kept.stream === stream.arn ? kept.shards : {};
  // Without a position, an older stream's records were seen by a run that kept none: skip them.
  const startAt = kept.stream === stream.arn || stream.fresh ? "TRIM_HORIZON" : "LATEST";
  /** @type {Map<string, { iterator?: string, closed?: boolean, pending: { seq: string, done: boolean }[] }>} */
  const shards = new Map();
  const readShard = async (/** @type {string} */ ShardId) => {
    const shard = shards.get(ShardId) ?? { pending: [] };
    shards.set(ShardId, shard);
    if (shard.closed) return;
    const settle = () => {
      if (!shard.pending[0]?.done) return;
      while (shard.pending[0]?.done) doneUpTo[ShardId] = String(shard.pending.shift()?.seq);
      writeFileSync(positionFile, JSON.stringify({ stream: stream.arn, shards: doneUpTo }));
    };
    // After the last record read, of this run or (kept) of the last.
    const after = shard.pending.at(-1)?.seq ?? doneUpTo[ShardId];
    /** @type {streamsApi.ShardIteratorType} */
    const ShardIteratorType = after ? "AFTER_SEQUENCE_NUMBER" : startAt;
    const input = { StreamArn: stream.arn, ShardId, ShardIteratorType, SequenceNumber: after };
    const iterator = new streamsApi.GetShardIteratorCommand(input);
    shard.iterator ??= (await streams.send(iterator)).ShardIterator;
    const read = new streamsApi.GetRecordsCommand({ ShardIterator: shard.iterator });
    const page = await streams.send(read).catch((error) => {
      // An iterator lives 15 minutes: take a new one from where reading got to.
      if (error.name === "ExpiredIteratorException") shard.iterator = undefined;
      throw error;
    });
    for (const record of page.Records ?? []) {
      // The Lambda event carries the time in seconds.
      const time = Number(record.dynamodb?.ApproximateCreationDateTime) / 1000;
      const dynamodb = { ...record.dynamodb, ApproximateCreationDateTime: time };
      const event = code.eventFromRecord(/** @type {any} */ ({ ...record, dynamodb }));
      const entry = { seq: String(record.dynamodb?.SequenceNumber), done: !event };
      shard.pending.push(entry);
      if (event)
        void deliver(event).then((done) => {
          entry.done = done;
          settle();
        });
    }
    settle();
    shard.iterator = page.NextShardIterator;
    shard.closed = !page.NextShardIterator;
  };
  const readStream = async () => {
    const describe = new streamsApi.DescribeStreamCommand({ StreamArn: stream.arn });
    const { StreamDescription } = await streams.send(describe);
    const start = (/** @type {streamsApi.Shard} */ shard) =>
      BigInt(shard.SequenceNumberRange?.StartingSequenceNumber ?? 0);
    const all = [...(StreamDescription?.Shards ?? [])].sort((a, b) => Number(start(a) - start(b)));
    for (const shard of all) if (shard.ShardId) await readShard(shard.ShardId);
  };
  const loop = (async () => {
    for (; !signal.aborted; await sleep(200)) {
      await readStream().catch((/** @type {Error} */ error) => {
        if (!signal.aborted) log(`events: reading the stream failed: ${error.message}`);
      });
    }
  })();
  return {
    stop: async () => {
      stopping.abort();
      await loop;
      streams.destroy();
    },
  };
}
