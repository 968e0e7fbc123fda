// Storage adapter, plumbing: the DynamoDB client, and how its failures become domain signals.
import { DynamoDBClient, type DynamoDBClientConfig } from "@aws-sdk/client-dynamodb";
import {
  DynamoDBDocumentClient,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from "@aws-sdk/lib-dynamodb";
import { StorageError } from "./errors.js";

/** Attempts per DynamoDB call (the SDK retries throttling and 5xx with backoff in between). */
export const DYNAMODB_MAX_ATTEMPTS = 3;
/**
 * How long one attempt may take, connection included. The whole budget, 3 attempts of 2 s plus
 * the SDK's backoff between them (under 0.6 s), ends before the answer's 9 s deadline
 * (lib/http-handler.ts), so a stalled call fails on its own first.
 */
export const ATTEMPT_TIMEOUT_MS = 2_000;

/**
 * Builds the DynamoDB client once per instance: keep-alive on, short timeouts, bounded retries,
 * so a failing call answers well inside the function's timeout. `overrides` is for tests.
 */
export function createDocumentClient(
  config: { region: string; endpoint?: string | undefined },
  overrides: Partial<DynamoDBClientConfig> = {},
): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: config.region,
    ...(config.endpoint && {
      endpoint: config.endpoint,
      // DynamoDB Local accepts any credentials; this keeps local runs free of AWS profiles.
      // Stryker disable next-line StringLiteral: any value, empty too, is accepted locally
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
    }),
    maxAttempts: DYNAMODB_MAX_ATTEMPTS,
    // A call that stalls is abandoned and retried instead of holding the function to its timeout.
    requestHandler: {
      connectionTimeout: 1_000,
      requestTimeout: ATTEMPT_TIMEOUT_MS,
      throwOnRequestTimeout: true,
    },
    ...overrides,
  });
  // No option to drop undefined values: every item written is complete, and one that was not
  // should fail loudly rather than be stored without a field.
  return DynamoDBDocumentClient.from(client);
}

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
 * Sends one command through `callStorage`, cancelled when `signal` aborts (the answer's deadline),
 * so every table's calls share one error mapping and one way to be cut off.
 */
export function sendCommand<I extends ServiceInputTypes, O extends ServiceOutputTypes>(
  db: DynamoDBDocumentClient,
  command: Parameters<typeof db.send<I, O>>[0],
  tableNames: (string | undefined)[],
  signal?: AbortSignal,
): Promise<O> {
  return callStorage(() => db.send(command, { abortSignal: signal }), tableNames);
}
