// Test helper: a fresh posts table in the run's DynamoDB Local, and raw access to its items.
import {
  type DynamoDBClientConfig,
  DeleteTableCommand,
  ScanCommand,
} from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import { inject } from "vitest";
import {
  LOCAL_REGION,
  ensureIdempotencyTable,
  ensureTable,
  localClient,
} from "../../scripts/dynamodb-local.mjs";
import type { Config } from "../../lib/config.js";
import { buildRuntime } from "../../lib/runtime.js";

let tables = 0;

/** An instance's configuration over these tables at `endpoint` (no Idempotency-Key without one). */
export function localConfig(
  endpoint: string,
  tableName: string,
  idempotencyTableName?: string,
): Config {
  const region = LOCAL_REGION;
  return { tableName, idempotencyTableName, endpoint, region, logLevel: "silent", idBlockSize: 1 };
}

/** Creates an empty table (with its counter) named for this test file; call `drop` when done. */
export async function freshTable(label: string) {
  const endpoint = inject("dynamoEndpoint");
  const tableName = `${label}-${process.pid}-${++tables}-${Date.now()}`;
  const admin = localClient(endpoint);
  const idempotencyTableName = `${tableName}-keys`;
  await ensureTable(admin, tableName);
  await ensureIdempotencyTable(admin, idempotencyTableName);
  const config = localConfig(endpoint, tableName, idempotencyTableName);
  /** A second client and repository on these tables, e.g. with a test's own request handler. */
  const connect = (overrides: Partial<DynamoDBClientConfig> = {}) => {
    const { client, posts } = buildRuntime(config, overrides);
    return { client, repository: posts };
  };
  const { client: documentClient, repository } = connect();

  /** Every item in the table, counter included, sorted by id. */
  const items = async (): Promise<Record<string, unknown>[]> => {
    const all: Record<string, unknown>[] = [];
    let ExclusiveStartKey: ScanCommand["input"]["ExclusiveStartKey"];
    do {
      const page = await admin.send(
        new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey }),
      );
      all.push(...(page.Items ?? []).map((item) => unmarshall(item)));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return all.sort((a, b) => Number(a.id) - Number(b.id));
  };

  const drop = async () => {
    await admin.send(new DeleteTableCommand({ TableName: tableName }));
    await admin.send(new DeleteTableCommand({ TableName: idempotencyTableName }));
    admin.destroy();
    documentClient.destroy();
  };
  return {
    config,
    tableName,
    idempotencyTableName,
    endpoint,
    documentClient,
    repository,
    connect,
    items,
    drop,
  };
}

/** A fresh table, its client and repository, as freshTable gives them. */
export type PostsTable = Awaited<ReturnType<typeof freshTable>>;
