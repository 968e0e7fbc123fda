// Local events: reads the posts table's stream in DynamoDB Local (turning it on for a table made
// before events existed), maps each change with the code AWS runs (lib/events) and hands it to
// webhook delivery. Its position is kept in a file, so a restart neither replays nor misses.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DescribeTableCommand, UpdateTableCommand } from "@aws-sdk/client-dynamodb";
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from "@aws-sdk/client-dynamodb-streams";
import { rm } from "node:fs/promises";
import * as esbuild from "esbuild";
import { LOCAL_CREDENTIALS, LOCAL_REGION, localClient } from "./dynamodb-local.mjs";
import { createLocalDelivery } from "./local-webhooks.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const POLL_MS = 200;

/** lib/events built for Node as it is for Lambda, so the local path runs the same code. */
export async function loadEventsCode() {
  // One file per process: two processes building into one path could import a half-written one.
  const outfile = `${root}dist/local-events/index-${process.pid}.mjs`;
  await esbuild.build({
    entryPoints: [`${root}lib/events/index.ts`],
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    outfile,
    logLevel: "warning",
  });
  /** @type {typeof import("../../lib/events/index.js")} */
  const code = await import(`${pathToFileURL(outfile).href}?${Date.now()}`);
  await rm(outfile, { force: true });
  return code;
}

/**
 * The table's stream, turned on (new and old images) if the table has none yet.
 * @returns {Promise<{ arn: string, fresh: boolean }>} fresh: just turned on, so nothing is old
 */
async function ensureStream(/** @type {string} */ endpoint, /** @type {string} */ tableName) {
  const client = localClient(endpoint);
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.StreamSpecification?.StreamEnabled && Table.LatestStreamArn) {
      return { arn: Table.LatestStreamArn, fresh: false };
    }
    const StreamSpecification = {
      StreamEnabled: true,
      StreamViewType: /** @type {const} */ ("NEW_AND_OLD_IMAGES"),
    };
    const updated = await client.send(
      new UpdateTableCommand({ TableName: tableName, StreamSpecification }),
    );
    return { arn: /** @type {string} */ (updated.TableDescription?.LatestStreamArn), fresh: true };
  } finally {
    client.destroy();
  }
}

/** @typedef {{ stream: string, shards: Record<string, string> }} Position */

/** Where reading stopped last time, for this stream; undefined when never, or another stream. */
function readPosition(/** @type {string} */ file, /** @type {string} */ stream) {
  if (!existsSync(file)) return undefined;
  const position = /** @type {Position} */ (JSON.parse(readFileSync(file, "utf8")));
  return position.stream === stream ? position : undefined;
}

/** A stream record as the Lambda event carries it: the time in seconds. */
const asLambdaRecord = (/** @type {any} */ record) => ({
  ...record,
  dynamodb: {
    ...record.dynamodb,
    ApproximateCreationDateTime: record.dynamodb.ApproximateCreationDateTime.getTime() / 1000,
  },
});

/**
 * Starts reading the stream and delivering to the subscriber; `stop()` ends both.
 * @param {{
 *   endpoint: string, tableName: string, positionFile: string, deadLetterFile: string,
 *   subscriber: { url: string, secrets: string[] }, log?: (line: string) => void,
 * }} options
 */
export async function startLocalEvents(options) {
  const { endpoint, tableName, positionFile, log = console.log } = options;
  const code = await loadEventsCode();
  const refused = code.refusedUrl(options.subscriber.url, true);
  if (refused) throw new Error(`WEBHOOK_URL ${refused}`);
  for (const secret of options.subscriber.secrets) code.secretKey(secret);
  const stream = await ensureStream(endpoint, tableName);
  const streams = new DynamoDBStreamsClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const delivery = createLocalDelivery({ code, ...options, log });
  const reader = createShardReader({ streams, stream, positionFile, code, delivery });
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        await reader.poll();
      } catch (error) {
        if (running)
          log(`events: reading the stream failed: ${/** @type {Error} */ (error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  })();
  return {
    stop: async () => {
      running = false;
      delivery.stop();
      await loop;
      streams.destroy();
    },
  };
}

/**
 * Reads every shard of the stream in order and hands each post's change to delivery. The position
 * kept per shard is the last record before which everything was delivered (or given up), so a
 * stop while a delivery waits for a retry reads that event again on the next start.
 * @param {{
 *   streams: DynamoDBStreamsClient, stream: { arn: string, fresh: boolean }, positionFile: string,
 *   code: Awaited<ReturnType<typeof loadEventsCode>>,
 *   delivery: ReturnType<typeof createLocalDelivery>,
 * }} options
 */
function createShardReader({ streams, stream, positionFile, code, delivery }) {
  const stored = readPosition(positionFile, stream.arn);
  /** @type {Record<string, string>} */
  const doneUpTo = { ...stored?.shards };
  // Without a position, an older stream's records were seen by a run that kept none: skip them.
  const startAt = /** @type {"TRIM_HORIZON" | "LATEST"} */ (
    stored || stream.fresh ? "TRIM_HORIZON" : "LATEST"
  );
  /** @type {Map<string, { iterator?: string, read?: string, closed?: boolean, pending: { seq: string, done: boolean }[] }>} */
  const shards = new Map();

  const settle = (/** @type {string} */ shardId) => {
    const pending = shards.get(shardId)?.pending ?? [];
    let moved = false;
    while (pending[0]?.done) {
      doneUpTo[shardId] = /** @type {{ seq: string }} */ (pending.shift()).seq;
      moved = true;
    }
    if (moved)
      writeFileSync(positionFile, JSON.stringify({ stream: stream.arn, shards: doneUpTo }));
  };

  const iteratorFor = async (
    /** @type {string} */ shardId,
    /** @type {string | undefined} */ after,
  ) => {
    const where = after
      ? { ShardIteratorType: /** @type {const} */ ("AFTER_SEQUENCE_NUMBER"), SequenceNumber: after }
      : { ShardIteratorType: startAt };
    const input = { StreamArn: stream.arn, ShardId: shardId, ...where };
    return (await streams.send(new GetShardIteratorCommand(input))).ShardIterator;
  };

  const readShard = async (/** @type {string} */ shardId) => {
    const state = shards.get(shardId) ?? { pending: [] };
    shards.set(shardId, state);
    if (state.closed) return;
    state.iterator ??= await iteratorFor(shardId, state.read ?? doneUpTo[shardId]);
    let page;
    try {
      page = await streams.send(new GetRecordsCommand({ ShardIterator: state.iterator }));
    } catch (error) {
      // An iterator lives 15 minutes: take a new one from where reading got to.
      if (/** @type {Error} */ (error).name === "ExpiredIteratorException")
        state.iterator = undefined;
      throw error;
    }
    for (const record of page.Records ?? []) {
      const seq = /** @type {string} */ (record.dynamodb?.SequenceNumber);
      const entry = { seq, done: false };
      state.pending.push(entry);
      state.read = seq;
      const event = code.eventFromRecord(asLambdaRecord(record));
      if (!event) entry.done = true;
      else {
        void delivery.enqueue(event).then((done) => {
          entry.done = done;
          settle(shardId);
        });
      }
    }
    settle(shardId);
    state.iterator = page.NextShardIterator;
    state.closed = !page.NextShardIterator;
  };

  return {
    /** One read of every shard, parents before children. */
    async poll() {
      const { StreamDescription } = await streams.send(
        new DescribeStreamCommand({ StreamArn: stream.arn }),
      );
      const all = [...(StreamDescription?.Shards ?? [])].sort((a, b) =>
        Number(
          BigInt(a.SequenceNumberRange?.StartingSequenceNumber ?? 0) -
            BigInt(b.SequenceNumberRange?.StartingSequenceNumber ?? 0),
        ),
      );
      for (const shard of all) if (shard.ShardId) await readShard(shard.ShardId);
    },
  };
}
