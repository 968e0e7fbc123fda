// The DynamoDB client one instance shares: keep-alive, short timeouts, bounded retries.
import { DynamoDBClient, type DynamoDBClientConfig } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";

/** Attempts per DynamoDB call (the SDK retries throttling and 5xx with backoff in between). */
export const DYNAMODB_MAX_ATTEMPTS = 3;
/**
 * How long one attempt may take, connection included. The whole budget, 3 attempts of 2 s plus
 * the SDK's backoff between them (under 0.6 s), ends before the answer's 9 s deadline
 * (lib/http/handler.ts), so a stalled call fails on its own first.
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
