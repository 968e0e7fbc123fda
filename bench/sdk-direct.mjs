// The bench's baseline: the same DynamoDB calls the repository makes, straight through the SDK.
// The bench bundles this file with the handlers' esbuild options, so both sides run the same SDK
// code and a ratio measures only what the handler adds (event parsing, validation, JSON, logging).
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import {
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
  paginateScan,
} from "@aws-sdk/lib-dynamodb";

/** @typedef {Record<string, unknown>} Item */

/** The id counter's key and attribute, as lib/repository.ts keeps them. */
const COUNTER_ID = 0;
const COUNTER_ATTRIBUTE = "last_id";
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A document client configured like lib/dynamodb.ts's createDocumentClient, with the calls the
 * handlers make.
 * @param {{ endpoint: string, region: string }} options
 */
export function createDirect({ endpoint, region }) {
  const client = new DynamoDBClient({
    region,
    endpoint,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000 },
  });
  const db = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });

  /** @param {string} table @param {number} id */
  const get = async (table, id) =>
    (await db.send(new GetCommand({ TableName: table, Key: { id }, ConsistentRead: true }))).Item;

  /** Writes an item unless its id is taken (the repository's create write). */
  const put = async (/** @type {string} */ table, /** @type {Item} */ item) => {
    await db.send(
      new PutCommand({
        TableName: table,
        Item: item,
        ConditionExpression: "attribute_not_exists(id)",
      }),
    );
  };

  /** Takes the next value of the id counter (the repository's counter call, block size 1). */
  const nextId = async (/** @type {string} */ table) => {
    const result = await db.send(
      new UpdateCommand({
        TableName: table,
        Key: { id: COUNTER_ID },
        UpdateExpression: "ADD #last :size",
        ExpressionAttributeNames: { "#last": COUNTER_ATTRIBUTE },
        ExpressionAttributeValues: { ":size": 1 },
        ReturnValues: "UPDATED_NEW",
      }),
    );
    return /** @type {number} */ (result.Attributes?.[COUNTER_ATTRIBUTE]);
  };

  /** A create as the repository makes it: a counter call, then the conditional put. */
  const create = async (/** @type {string} */ table, /** @type {Item} */ fields) => {
    const item = { id: await nextId(table), ...fields };
    await put(table, item);
    return item;
  };

  /**
   * Sets fields and `updated_at` on an existing item; returns the new item.
   * @param {string} table @param {number} id @param {Record<string, string>} changes
   */
  const update = async (table, id, changes) => {
    /** @type {Record<string, string>} */
    const names = { "#updated_at": "updated_at" };
    /** @type {Record<string, unknown>} */
    const values = { ":updated_at": new Date().toISOString() };
    const assignments = ["#updated_at = :updated_at"];
    for (const [field, value] of Object.entries(changes)) {
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      assignments.push(`#${field} = :${field}`);
    }
    const result = await db.send(
      new UpdateCommand({
        TableName: table,
        Key: { id },
        ConditionExpression: "attribute_exists(id)",
        UpdateExpression: `SET ${assignments.join(", ")}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: "ALL_NEW",
      }),
    );
    return result.Attributes;
  };

  /** @param {string} table @param {number} id */
  const remove = async (table, id) => {
    await db.send(new DeleteCommand({ TableName: table, Key: { id } }));
  };

  /** Every post, through the same paginated, filtered, consistent Scan the repository makes. */
  const scanAll = async (/** @type {string} */ table) => {
    /** @type {Item[]} */
    const items = [];
    const pages = paginateScan(
      { client: db },
      {
        TableName: table,
        ConsistentRead: true,
        FilterExpression: "id <> :counter",
        ExpressionAttributeValues: { ":counter": COUNTER_ID },
      },
    );
    for await (const page of pages) for (const item of page.Items ?? []) items.push(item);
    return items;
  };

  /**
   * Writes up to 25 items in one BatchWrite, retrying what DynamoDB leaves unprocessed
   * (at most 20 attempts).
   * @param {string} table @param {Item[]} items
   */
  const batchPut = async (table, items) => {
    /** @type {Record<string, any[]> | undefined} */
    let pending = { [table]: items.map((Item) => ({ PutRequest: { Item } })) };
    for (let attempt = 0; pending && Object.keys(pending).length > 0; attempt++) {
      if (attempt === 20) throw new Error(`BatchWrite on ${table}: items still unprocessed`);
      if (attempt > 0) await sleep(Math.min(1_000, 25 * 2 ** attempt));
      const result = /** @type {import("@aws-sdk/lib-dynamodb").BatchWriteCommandOutput} */ (
        await db.send(new BatchWriteCommand({ RequestItems: pending }))
      );
      pending = result.UnprocessedItems;
    }
  };

  return {
    get,
    put,
    nextId,
    create,
    update,
    remove,
    scanAll,
    batchPut,
    destroy: () => db.destroy(),
  };
}
