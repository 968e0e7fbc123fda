// The one way every table's calls reach DynamoDB: cancelled by the answer's deadline, failures
// turned into domain signals, and no table name in a message a client may see.
import type {
  DynamoDBDocumentClient,
  ServiceInputTypes,
  ServiceOutputTypes,
} from "@aws-sdk/lib-dynamodb";
import { StorageError } from "../posts/errors.js";
import { meterCapacity } from "./capacity.js";

/**
 * A write's condition did not hold. `reasons` says which items of a transaction failed;
 * `existing` is the item that was there (when asked for), `retried` whether the SDK had already
 * sent the call more than once, so an earlier attempt may have written it.
 */
export class ConditionFailed extends Error {
  constructor(
    readonly reasons: (string | undefined)[] = [],
    readonly existing: Record<string, unknown> | undefined = undefined,
    readonly retried = false,
  ) {
    super("condition failed");
  }
}

/** Removes what a client must not see from an SDK error message: ARNs, account ids, table names. */
export function sanitizeErrorMessage(message: string, tableNames: (string | undefined)[]): string {
  let text = message
    .replace(/arn:aws[\w-]*:[^\s"',;]+/g, "<arn>")
    .replace(/\b\d{12}\b/g, "<account>");
  for (const name of tableNames) {
    // Whole names only: a short name like "t" must not eat letters out of other words.
    const escaped = name?.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (escaped)
      text = text.replace(new RegExp(`(?<![\\w.-])${escaped}(?![\\w-]|\\.[\\w-])`, "g"), "<table>");
  }
  return text;
}

/**
 * Runs one storage call: a failed condition becomes ConditionFailed, any other SDK failure a
 * StorageError whose message names no table of `tableNames`.
 */
export async function callStorage<T>(
  call: () => Promise<T>,
  tableNames: (string | undefined)[],
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    if (error.name === "ConditionalCheckFailedException") {
      const { Item, $metadata } = error as {
        Item?: Record<string, unknown>;
        $metadata?: { attempts?: number };
      };
      throw new ConditionFailed([], Item, ($metadata?.attempts ?? 1) > 1);
    }
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
    if (
      error.name === "TransactionCanceledException" &&
      reasons?.every((r) => r.Code === "None" || r.Code === "ConditionalCheckFailed")
    ) {
      throw new ConditionFailed(reasons.map((r) => r.Code));
    }
    const description = `${error.name}: ${sanitizeErrorMessage(error.message, tableNames)}`;
    throw new StorageError(description, { cause: error });
  }
}

/**
 * Sends the calls of every table of one instance through one client: each call cancelled when its
 * signal aborts (the answer's deadline), each failure mapped by `callStorage`, hiding every
 * table's name, and each call's consumed capacity charged to its request (capacity.ts).
 */
export class Sender {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    /** Every table name a storage error message must not show. */
    private readonly hiddenNames: (string | undefined)[],
  ) {
    meterCapacity(db);
  }

  /** Sends one command, cancelled when `signal` aborts. */
  send<I extends ServiceInputTypes, O extends ServiceOutputTypes>(
    command: Parameters<typeof this.db.send<I, O>>[0],
    signal?: AbortSignal,
  ): Promise<O> {
    return this.run((db) => db.send(command, { abortSignal: signal }));
  }

  /** Runs calls that need the client itself (a paginator), with the same failure mapping. */
  run<T>(calls: (db: DynamoDBDocumentClient) => Promise<T>): Promise<T> {
    return callStorage(() => calls(this.db), this.hiddenNames);
  }
}
