// The change marker: counter items in the posts table that every write advances before it is
// acknowledged, each with a ring of the last writes' post ids, so a list can tell in one call
// whether anything changed, and which posts.
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { StorageError } from "../posts/errors.js";
import { batchGetIds } from "./batch-get.js";
import { ConditionFailed, type Sender } from "./sender.js";

/**
 * Shards of the marker. On AWS one item takes about 1,000 writes a second; the id counter
 * already takes one per create, so a single marker item would halve the create ceiling. Eight
 * shards each take an eighth of the writes, and a list reads them all for 8 read units.
 */
export const MARKER_SHARDS = 8;
/** Shard i lives at id -1 - i: no request can name it (path and body ids are positive). */
export const markerId = (shard: number) => -1 - shard;
/**
 * Slots of each shard's ring: write number n of a shard records its post's id in slot n mod 32.
 * The ring never grows, so a shard item stays under 1 KB (32 slots of at most 23 bytes, whatever
 * the ids and the count) and each of a write's two marker calls costs 1 write unit.
 */
export const RING_SLOTS = 32;
const CHANGES_ATTRIBUTE = "changes";
/** Digits of a write's number in its slot: fixed, so entries compare in order as text. */
const SEQUENCE_DIGITS = 8;

/** The attribute that holds write number `sequence`'s slot. */
export const slotName = (sequence: number) => `r${sequence % RING_SLOTS}`;
/** A slot's text: the write's number in base 36, fixed width, then the post's id. */
export const slotEntry = (sequence: number, postId: number) =>
  `${sequence.toString(36).padStart(SEQUENCE_DIGITS, "0")}:${postId.toString(36)}`;

/** One shard as read: its count of writes, and the post id of each write its ring still holds. */
export interface ShardState {
  count: number;
  written: Map<number, number>;
}

/**
 * What changed on a shard since write number `from`: the post ids of the writes recorded since,
 * and `through`, the last write up to which every one is recorded (a write whose slot is not set
 * yet is still in flight, or failed after its post landed). Undefined when the ring no longer
 * holds them all: the reader is too far behind.
 */
export function changesSince(shard: ShardState, from: number) {
  if (shard.count - from > RING_SLOTS || shard.count < from) return undefined;
  const ids: number[] = [];
  const missing: number[] = [];
  for (let sequence = from + 1; sequence <= shard.count; sequence++) {
    const id = shard.written.get(sequence);
    if (id === undefined) missing.push(sequence);
    else ids.push(id);
  }
  return { ids, missing, through: (missing[0] ?? shard.count + 1) - 1 };
}

/** A shard item as stored: its count and its slots, each write's number with its post's id. */
function shardState(item: Record<string, unknown>): ShardState {
  const written = new Map<number, number>();
  for (let slot = 0; slot < RING_SLOTS; slot++) {
    const [sequence, id] = String(item[`r${slot}`] ?? "").split(":");
    if (id) written.set(parseInt(sequence as string, 36), parseInt(id, 36));
  }
  return { count: Number(item[CHANGES_ATTRIBUTE] ?? 0), written };
}

/** The posts table's change marker: shards whose counts only ever grow, read together. */
export class ChangeMarker {
  constructor(
    private readonly sender: Sender,
    /** The posts table, where the shards live. */
    private readonly tableName: string,
    private readonly shards = MARKER_SHARDS,
    private readonly pick = () => Math.floor(Math.random() * shards),
  ) {}

  /**
   * Records that post `postId` changed: one atomic ADD on a random shard, whose answer numbers
   * the write, then its slot set to that number and the id, unless a later write holds the slot.
   */
  async advance(postId: number, signal?: AbortSignal): Promise<void> {
    const key = { id: markerId(this.pick()) };
    const add = new UpdateCommand({
      TableName: this.tableName,
      Key: key,
      UpdateExpression: "ADD #changes :one",
      ExpressionAttributeNames: { "#changes": CHANGES_ATTRIBUTE },
      ExpressionAttributeValues: { ":one": 1 },
      ReturnValues: "UPDATED_NEW",
    });
    const { Attributes } = await this.sender.send(add, signal);
    const sequence = Attributes?.[CHANGES_ATTRIBUTE] as number;
    if (!Number.isSafeInteger(sequence)) {
      throw new StorageError("ChangeMarkerUnnumbered: the marker's ADD returned no count");
    }
    const record = new UpdateCommand({
      TableName: this.tableName,
      Key: key,
      UpdateExpression: "SET #slot = :entry",
      // A write delayed past a whole lap of the ring must not put back an older entry.
      ConditionExpression: "attribute_not_exists(#slot) OR #slot < :entry",
      ExpressionAttributeNames: { "#slot": slotName(sequence) },
      ExpressionAttributeValues: { ":entry": slotEntry(sequence, postId) },
    });
    try {
      await this.sender.send(record, signal);
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
    }
  }

  /** Every shard now, read consistently in one BatchGetItem, repeated only for unprocessed keys. */
  async read(signal?: AbortSignal): Promise<ShardState[]> {
    const states: ShardState[] = Array.from({ length: this.shards }, () => ({
      count: 0,
      written: new Map(),
    }));
    const ids = states.map((_, shard) => markerId(shard));
    const take = (item: Record<string, unknown>) => {
      states[markerId(item.id as number)] = shardState(item);
    };
    await batchGetIds(this.sender, this.tableName, ids, take, "change marker unread", signal);
    return states;
  }
}
