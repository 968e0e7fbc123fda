// `npm start`'s reader of the posts table's stream in DynamoDB Local, where Lambda's event source
// mapping reads it on AWS: the stream turned on for a table made before events, every shard read
// in turn (parents first), each page of records handed on in Lambda's shape, and the position kept
// in a file, moved past a record only once it is done with, so a restart neither replays nor misses.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { DescribeTableCommand, UpdateTableCommand } from "@aws-sdk/client-dynamodb";
import * as streamsApi from "@aws-sdk/client-dynamodb-streams";
import { LOCAL_SDK_SETTINGS, localClient } from "./dynamodb-local.mjs";

/** @typedef {import("../../lib/events/queue-sender.js").StreamRecord} StreamRecord */
/**
 * Hands a page of records on; answers, per record, a promise settled once it is done with.
 * @typedef {(records: StreamRecord[]) => Promise<Promise<unknown>[]>} HandOn
 */

/** How often the stream is read again once read to its end. */
const READ_EVERY_MS = 200;

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

/** A record as Lambda hands it over: the time in seconds where the stream API gives a Date. */
const inLambdaShape = (/** @type {streamsApi._Record} */ record) =>
  /** @type {StreamRecord} */ ({
    ...record,
    dynamodb: {
      ...record.dynamodb,
      ApproximateCreationDateTime: Number(record.dynamodb?.ApproximateCreationDateTime) / 1000,
    },
  });

/**
 * Starts reading the stream from the kept position; `stop()` ends reading, and no position is
 * written after it (what was not done with by then is read again at the next start).
 * @param {{ endpoint: string, tableName: string, positionFile: string, handOn: HandOn,
 *   log: (line: string) => void }} options
 */
export async function startStreamReader({ endpoint, tableName, positionFile, handOn, log }) {
  const stream = await ensureStream(endpoint, tableName);
  const streams = new streamsApi.DynamoDBStreamsClient({ ...LOCAL_SDK_SETTINGS, endpoint });
  const stopping = new AbortController();
  const { signal } = stopping;
  // The position kept per shard is the last record before which everything was done with.
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
      if (signal.aborted || !shard.pending[0]?.done) return;
      while (shard.pending[0]?.done) doneUpTo[ShardId] = String(shard.pending.shift()?.seq);
      writeFileSync(positionFile, JSON.stringify({ stream: stream.arn, shards: doneUpTo }));
    };
    // After the last record read, of this run or (kept) of the last.
    const after = shard.pending.at(-1)?.seq ?? doneUpTo[ShardId];
    /** @type {streamsApi.ShardIteratorType} */
    const ShardIteratorType = after ? "AFTER_SEQUENCE_NUMBER" : startAt;
    const input = { StreamArn: stream.arn, ShardId, ShardIteratorType, SequenceNumber: after };
    shard.iterator ??= (
      await streams.send(new streamsApi.GetShardIteratorCommand(input))
    ).ShardIterator;
    const read = new streamsApi.GetRecordsCommand({ ShardIterator: shard.iterator });
    const page = await streams.send(read).catch((error) => {
      // An iterator lives 15 minutes; and DynamoDB Local may call one taken at the start of a
      // stream just turned on past its oldest record. Either way, take a new one from where
      // reading got to.
      if (/^(ExpiredIterator|TrimmedDataAccess)Exception$/.test(error.name))
        shard.iterator = undefined;
      throw error;
    });
    const records = (page.Records ?? []).map(inLambdaShape);
    const handedOn = await handOn(records);
    records.forEach((record, at) => {
      const entry = { seq: String(record.dynamodb?.SequenceNumber), done: false };
      shard.pending.push(entry);
      void handedOn[at]?.then(() => {
        entry.done = true;
        settle();
      });
    });
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
    for (; !signal.aborted; await sleep(READ_EVERY_MS)) {
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
