// Test helper: a fresh posts table in the run's DynamoDB Local, and raw access to its items.
import {
  type DynamoDBClient,
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
} from "../../scripts/lib/dynamodb-local.mjs";
import type { Config } from "../../lib/app/config.js";
import { dynamoRepository } from "../../lib/app/runtime.js";
import type { Post } from "../../lib/posts/post.js";
import { createDocumentClient } from "../../lib/storage/client.js";

let tables = 0;

/** An instance's configuration over these tables at `endpoint` (no Idempotency-Key without `keys`). */
export function localConfig(endpoint: string, tableName: string, keys?: string): Config {
  const settings = { logLevel: "silent" as const, idBlockSize: 1, corsOrigins: [] };
  return { tableName, idempotencyTableName: keys, endpoint, region: LOCAL_REGION, ...settings };
}

/** Every item of a table, read consistently page by page, sorted by id. */
export async function scanItems(admin: DynamoDBClient, tableName: string) {
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
}

/** The posts among a table's items: the counter (0) and the change marker (negative ids) left out. */
export const postsOf = (items: Record<string, unknown>[]) =>
  items.filter((item) => Number(item.id) > 0) as unknown as Post[];

/** A client and the repository the handlers' wiring builds over it. */
export function connectStorage(config: Config, overrides: Partial<DynamoDBClientConfig> = {}) {
  const client = createDocumentClient(config, overrides);
  return { client, repository: dynamoRepository(config, client) };
}

/**
 * DynamoDB Local on a busy machine can take seconds to accept a connection, where the production
 * client gives up after 1 s (deadline.test.ts tests that client, built with connectStorage).
 */
const PATIENT_CLIENT: Partial<DynamoDBClientConfig> = {
  requestHandler: {
    connectionTimeout: 10_000,
    requestTimeout: 20_000,
    throwOnRequestTimeout: true,
  },
};

/** Creates an empty table named for this test file; call `drop` when done. */
export async function freshTable(label: string, endpoint = inject("dynamoEndpoint")) {
  const tableName = `${label}-${process.pid}-${++tables}-${Date.now()}`;
  const idempotencyTableName = `${tableName}-keys`;
  const table = openTable(tableName, idempotencyTableName, endpoint);
  await ensureTable(table.admin, tableName);
  await ensureIdempotencyTable(table.admin, idempotencyTableName);
  const drop = async () => {
    await table.admin.send(new DeleteTableCommand({ TableName: tableName }));
    await table.admin.send(new DeleteTableCommand({ TableName: idempotencyTableName }));
    table.close();
  };
  return { ...table, drop };
}

/** Clients over existing tables (a shared instance's): `close` when done, the tables stay. */
export function openTable(tableName: string, idempotencyTableName: string, endpoint: string) {
  const admin = localClient(endpoint);
  const config = localConfig(endpoint, tableName, idempotencyTableName);
  /** A second client and repository on these tables, e.g. with a test's own request handler. */
  const connect = (overrides: Partial<DynamoDBClientConfig> = {}) =>
    connectStorage(config, { ...PATIENT_CLIENT, ...overrides });
  const { client: documentClient, repository } = connect();
  /** Every item in the table, counter included, sorted by id; the posts among them. */
  const items = () => scanItems(admin, tableName);
  const posts = async () => postsOf(await items());
  const close = () => (admin.destroy(), documentClient.destroy());
  const clients = { admin, documentClient, repository, connect };
  return { config, tableName, idempotencyTableName, endpoint, ...clients, items, posts, close };
}

/** A fresh table, its client and repository, as freshTable gives them. */
export type PostsTable = Awaited<ReturnType<typeof freshTable>>;

/** Clients over a table that outlives them, as openTable gives them. */
export type OpenTable = ReturnType<typeof openTable>;
