// The change marker: counter items in the posts table that every write advances
// before it is acknowledged, so a list can tell in one call whether anything changed.
import { BatchGetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { StorageError } from "../posts/errors.js";
import type { Sender } from "./sender.js";

/**
 * Shards of the marker. On AWS one item takes about 1,000 writes a second; the id counter
 * already takes one per create, so a single marker item would halve the create ceiling. Eight
 * shards each take an eighth of the writes, and a list reads them all for 8 read units.
 */
export const MARKER_SHARDS = 8;
/** Shard i lives at id -1 - i: no request can name it (path and body ids are positive). */
export const markerId = (shard: number) => -1 - shard;
const CHANGES_ATTRIBUTE = "changes";
/** BatchGetItem calls per read before unprocessed keys (throttling) count as a failure. */
const BATCH_ATTEMPTS = 5;

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    });
  });

/** The posts table's change marker: shards that only ever grow, read together as one value. */
export class ChangeMarker {
  constructor(
    private readonly sender: Sender,
    /** The posts table, where the shards live. */
    private readonly tableName: string,
    private readonly shards = MARKER_SHARDS,
    private readonly pick = () => Math.floor(Math.random() * shards),
  ) {}

  /** Records that a post changed: one atomic ADD on a random shard. */
  async advance(signal?: AbortSignal): Promise<void> {
    const update = new UpdateCommand({
      TableName: this.tableName,
      Key: { id: markerId(this.pick()) },
      UpdateExpression: "ADD #changes :one",
      ExpressionAttributeNames: { "#changes": CHANGES_ATTRIBUTE },
      ExpressionAttributeValues: { ":one": 1 },
    });
    await this.sender.send(update, signal);
  }

  /**
   * The marker now, as text that changes whenever any shard does: every shard read consistently
   * in one BatchGetItem, repeated only for keys DynamoDB leaves unprocessed.
   */
  async read(signal?: AbortSignal): Promise<string> {
    const name = this.tableName;
    const counts = new Array<number>(this.shards).fill(0);
    let keys: Record<string, unknown>[] = counts.map((_, shard) => ({ id: markerId(shard) }));
    for (let attempt = 0; keys.length > 0; attempt++) {
      if (attempt === BATCH_ATTEMPTS) {
        throw new StorageError("ProvisionedThroughputExceededException: change marker unread");
      }
      if (attempt > 0) await pause(25 * 2 ** attempt, signal);
      const batch = new BatchGetCommand({
        RequestItems: { [name]: { Keys: keys, ConsistentRead: true } },
      });
      const { Responses, UnprocessedKeys } = await this.sender.send(batch, signal);
      for (const item of Responses?.[name] ?? []) {
        counts[markerId(item.id as number)] = Number(item[CHANGES_ATTRIBUTE] ?? 0);
      }
      keys = UnprocessedKeys?.[name]?.Keys ?? [];
    }
    return counts.join(".");
  }
}
