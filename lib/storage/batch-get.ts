// Consistent reads of many items by key, as few BatchGetItem calls as DynamoDB allows, reading
// again what it leaves unprocessed (it does so when throttled, or past 16 MB an answer).
import { BatchGetCommand } from "@aws-sdk/lib-dynamodb";
import { StorageError } from "../posts/errors.js";
import type { Sender } from "./sender.js";

/** Keys one BatchGetItem may ask for. */
export const BATCH_GET_KEYS = 100;
/** Calls per group of keys before unprocessed keys (throttling) count as a failure. */
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

/**
 * Reads the items with these ids consistently and hands each found one to `take`; ids with no
 * item are simply not handed. `unread` names what failed when keys stay unprocessed.
 */
export async function batchGetIds(
  sender: Sender,
  tableName: string,
  ids: readonly number[],
  take: (item: Record<string, unknown>) => void,
  unread: string,
  signal?: AbortSignal,
): Promise<void> {
  for (let start = 0; start < ids.length; start += BATCH_GET_KEYS) {
    let keys: Record<string, unknown>[] = ids
      .slice(start, start + BATCH_GET_KEYS)
      .map((id) => ({ id }));
    for (let attempt = 0; keys.length > 0; attempt++) {
      if (attempt === BATCH_ATTEMPTS) {
        throw new StorageError(`ProvisionedThroughputExceededException: ${unread}`);
      }
      if (attempt > 0) await pause(25 * 2 ** attempt, signal);
      const batch = new BatchGetCommand({
        RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true } },
      });
      const { Responses, UnprocessedKeys } = await sender.send(batch, signal);
      for (const item of Responses?.[tableName] ?? []) take(item);
      keys = UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  }
}
