// What a request's DynamoDB calls cost: every call asks for its consumed capacity, and the units
// are added to the counts of the request whose repository call made it (lib/posts/repository.ts).
import { AsyncLocalStorage } from "node:async_hooks";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { type StorageCounts, addCount } from "./counts.js";

/** The counts of the request a storage call runs for, found from within the SDK's middleware. */
const requestCounts = new AsyncLocalStorage<StorageCounts>();

/** DynamoDB's operations that read; every other one the service makes writes. */
const READS = new Set(["GetItemCommand", "BatchGetItemCommand", "ScanCommand", "QueryCommand"]);
const METER_NAME = "consumedCapacityMeter";

interface Consumed {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

/**
 * Runs `work` with every DynamoDB call it makes charged to `counts` (ReadUnits, WriteUnits). A
 * request's counts are otherwise passed as a parameter (ListCache, IdAllocator and
 * IdempotentCreate take them for the counts they add); only here do they ride with the calls'
 * async context, because the SDK runs its middleware itself and hands it no argument of ours.
 */
export function metered<T>(counts: StorageCounts | undefined, work: () => Promise<T>): Promise<T> {
  return counts ? requestCounts.run(counts, work) : work();
}

/** Adds one answer's consumed capacity to the counts of the request that made the call. */
export function charge(commandName: string, consumed: Consumed | Consumed[] | undefined): void {
  const counts = requestCounts.getStore();
  if (!counts || !consumed) return;
  for (const part of Array.isArray(consumed) ? consumed : [consumed]) {
    const total = part.CapacityUnits ?? 0;
    const read = part.ReadCapacityUnits ?? (READS.has(commandName) ? total : 0);
    const write = part.WriteCapacityUnits ?? (READS.has(commandName) ? 0 : total);
    if (read > 0) addCount(counts, "ReadUnits", read);
    if (write > 0) addCount(counts, "WriteUnits", write);
  }
}

/**
 * Makes every call through `db` ask for its consumed capacity (ReturnConsumedCapacity: TOTAL) and
 * charge it, paginated Scans included. Added once per client, whoever builds a sender over it.
 */
export function meterCapacity(db: DynamoDBDocumentClient): void {
  const stack = db.middlewareStack;
  if (stack.identify().some((entry) => entry.startsWith(METER_NAME))) return;
  stack.add(
    (next, context) => async (args) => {
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = "TOTAL";
      const answer = await next(args);
      const output = answer.output as { ConsumedCapacity?: Consumed | Consumed[] };
      charge(String(context.commandName), output.ConsumedCapacity);
      return answer;
    },
    { step: "initialize", name: METER_NAME },
  );
}
