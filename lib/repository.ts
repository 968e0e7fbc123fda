// Storage adapter: the only module that knows DynamoDB, the table layout and the id counter.
import { randomUUID } from "node:crypto";
import { DynamoDBClient, type DynamoDBClientConfig } from "@aws-sdk/client-dynamodb";
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  paginateScan,
} from "@aws-sdk/lib-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { Config } from "./config.js";
import {
  BadRequestError,
  ConflictError,
  InProgressError,
  NotFoundError,
  StorageError,
  UnprocessableEntityError,
} from "./errors.js";
import { IdAllocator } from "./id-allocator.js";
import { IDEMPOTENCY_TTL_SECONDS, type IdempotentRequest } from "./idempotency.js";
import type { NewPost, Post, PostChanges } from "./post.js";
import { now } from "./timestamps.js";

/** What the handlers need from storage. */
export interface PostRepository {
  /** Every post, ascending by id. */
  list(): Promise<Post[]>;
  /** The post with this id, or undefined. */
  get(id: number): Promise<Post | undefined>;
  /** Stores a new post; throws ConflictError when a client-chosen id is taken. */
  create(post: NewPost): Promise<Post>;
  /**
   * Like create, but at most once per Idempotency-Key: a retry with the same body gets the
   * first outcome again; a different body throws UnprocessableEntityError.
   */
  createOnce(post: NewPost, request: IdempotentRequest): Promise<Post>;
  /** Applies changes and refreshes `updated_at`; throws NotFoundError when there is no post. */
  update(id: number, changes: PostChanges): Promise<Post>;
  /** Deletes the post if there is one. */
  delete(id: number): Promise<void>;
}

/**
 * The id counter lives in the posts table under id 0, which no request can name (path and
 * payload ids are positive), so it can never be read, listed, changed or deleted through the API.
 */
export const COUNTER_ID = 0;
const COUNTER_ATTRIBUTE = "last_id";

/** How long a claimed Idempotency-Key is held before a retry may take it over. */
const CLAIM_LEASE_MS = 15_000;
/** How long a retry waits for the first request with its key to finish. */
const RETRY_WAIT_MS = 5_000;

/** A stored Idempotency-Key record. */
interface KeyRecord {
  key: string;
  fingerprint: string;
  owner: string;
  state: "pending" | "done";
  lease_until: number;
  expires_at: number;
  status?: 201 | 409;
  post?: Post;
  conflict_id?: number;
}

/** Attempts per DynamoDB call (the SDK retries throttling and 5xx with backoff in between). */
export const DYNAMODB_MAX_ATTEMPTS = 3;

/**
 * Builds the DynamoDB client once per instance: keep-alive on, short timeouts, bounded retries,
 * so a failing call answers well inside the function's timeout. `overrides` is for tests.
 */
export function createDocumentClient(
  config: Config,
  overrides: Partial<DynamoDBClientConfig> = {},
): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: config.region,
    ...(config.endpoint && {
      endpoint: config.endpoint,
      // DynamoDB Local accepts any credentials; this keeps local runs free of AWS profiles.
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
    }),
    maxAttempts: DYNAMODB_MAX_ATTEMPTS,
    // A call that stalls is abandoned and retried instead of holding the function to its timeout.
    requestHandler: {
      connectionTimeout: 1_000,
      requestTimeout: 3_000,
      throwOnRequestTimeout: true,
    },
    ...overrides,
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/**
 * A write's condition did not hold. `reasons` says which items of a transaction failed;
 * `existing` is the item that was there (when asked for), `retried` whether the SDK had already
 * sent the call more than once, so an earlier attempt may have written it.
 */
class ConditionFailed extends Error {
  constructor(
    readonly reasons: (string | undefined)[] = [],
    readonly existing: Record<string, unknown> | undefined = undefined,
    readonly retried = false,
  ) {
    super("condition failed");
  }
}

/** Whether a stored item (as DynamoDB returned it) is exactly this post. */
function samePost(existing: Record<string, unknown> | undefined, post: Post): boolean {
  if (!existing) return false;
  const stored = unmarshall(existing as Parameters<typeof unmarshall>[0]);
  return (Object.keys(post) as (keyof Post)[]).every((key) => stored[key] === post[key]);
}

/** Removes what a client must not see from an SDK error message: ARNs, account ids, table names. */
export function sanitizeErrorMessage(message: string, tableNames: (string | undefined)[]): string {
  let text = message
    .replace(/arn:aws[\w-]*:[^\s"',]+/g, "<arn>")
    .replace(/\b\d{12}\b/g, "<account>");
  for (const name of tableNames) if (name) text = text.split(name).join("<table>");
  return text;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const epochSeconds = () => Math.floor(Date.now() / 1000);

/** A DynamoDB-backed repository over the posts table (and the Idempotency-Key table). */
export class DynamoPostRepository implements PostRepository {
  private readonly ids: IdAllocator;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly options: { idempotencyTableName?: string; idBlockSize?: number } = {},
  ) {
    this.ids = new IdAllocator((size) => this.reserveIds(size), options.idBlockSize ?? 1);
  }

  async list(): Promise<Post[]> {
    const posts: Post[] = [];
    const pages = paginateScan(
      { client: this.db },
      {
        TableName: this.tableName,
        ConsistentRead: true,
        FilterExpression: "id <> :counter",
        ExpressionAttributeValues: { ":counter": COUNTER_ID },
      },
    );
    await this.storage(async () => {
      for await (const page of pages) for (const item of page.Items ?? []) posts.push(item as Post);
    });
    return posts.sort((a, b) => a.id - b.id);
  }

  async get(id: number): Promise<Post | undefined> {
    const result = await this.storage(() =>
      this.db.send(
        new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true }),
      ),
    );
    return result.Item as Post | undefined;
  }

  async create(input: NewPost): Promise<Post> {
    for (let collisions = 0; ; collisions++) {
      const post = await this.newPost(input, collisions);
      try {
        await this.storage(() =>
          this.db.send(
            new PutCommand({
              TableName: this.tableName,
              Item: post,
              ConditionExpression: "attribute_not_exists(id)",
              ReturnValuesOnConditionCheckFailure: "ALL_OLD",
            }),
          ),
        );
        return post;
      } catch (error) {
        if (!(error instanceof ConditionFailed)) throw error;
        // The SDK retried a write whose answer was lost: the post there is this one.
        if (error.retried && samePost(error.existing, post)) return post;
        if (input.id !== undefined) throw new ConflictError(input.id);
      }
    }
  }

  async createOnce(input: NewPost, request: IdempotentRequest): Promise<Post> {
    const keyTable = this.options.idempotencyTableName;
    if (!keyTable) throw new BadRequestError("Idempotency-Key is not enabled on this deployment");
    const waitUntil = Date.now() + RETRY_WAIT_MS;
    for (;;) {
      const owner = randomUUID();
      if (await this.claimKey(keyTable, request, owner)) {
        const post = await this.createClaimed(keyTable, input, request.key, owner);
        if (post) return post;
        continue; // another request took the key over meanwhile: use its outcome
      }
      const record = await this.readKey(keyTable, request.key);
      if (!record || record.expires_at < epochSeconds()) continue;
      if (record.owner === owner && record.state === "pending") {
        // The claim was written, but its answer was lost and the SDK's retry found it taken.
        const post = await this.createClaimed(keyTable, input, request.key, owner);
        if (post) return post;
        continue;
      }
      if (record.fingerprint !== request.fingerprint) {
        throw new UnprocessableEntityError(
          "Idempotency-Key was already used with a different request body",
        );
      }
      if (record.state === "done") {
        if (record.status === 409) throw new ConflictError(record.conflict_id ?? 0);
        return record.post as Post;
      }
      if (record.lease_until < Date.now()) continue; // the first request died: take over
      if (Date.now() > waitUntil) throw new InProgressError();
      await sleep(50 + Math.random() * 100);
    }
  }

  async update(id: number, changes: PostChanges): Promise<Post> {
    const names: Record<string, string> = { "#updated_at": "updated_at" };
    const values: Record<string, unknown> = { ":updated_at": now() };
    const assignments = ["#updated_at = :updated_at"];
    for (const [field, value] of Object.entries(changes)) {
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      assignments.push(`#${field} = :${field}`);
    }
    try {
      const result = await this.storage(() =>
        this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { id },
            // Only an existing post can be updated: never create one, never resurrect a deleted one.
            ConditionExpression: "attribute_exists(id)",
            UpdateExpression: `SET ${assignments.join(", ")}`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnValues: "ALL_NEW",
          }),
        ),
      );
      return result.Attributes as Post;
    } catch (error) {
      if (error instanceof ConditionFailed) throw new NotFoundError(id);
      throw error;
    }
  }

  async delete(id: number): Promise<void> {
    if (id === COUNTER_ID) throw new Error("The id counter is not a post");
    await this.storage(() =>
      this.db.send(new DeleteCommand({ TableName: this.tableName, Key: { id } })),
    );
  }

  /**
   * The post a create will write: client-sent id and timestamps kept, the rest filled in. After
   * the n-th counter value in a row turns out taken by a client-chosen id, the next try skips
   * 2^n values at once, so a run of k taken ids costs O(log k) calls, not O(k).
   */
  private async newPost(input: NewPost, collisions = 0): Promise<Post> {
    const timestamp = now();
    const skip = 2 ** Math.min(collisions, 30);
    return {
      id: input.id ?? (collisions === 0 ? await this.ids.nextId() : await this.reserveIds(skip)),
      title: input.title,
      content: input.content,
      created_at: input.created_at !== undefined ? input.created_at : timestamp,
      updated_at: input.updated_at !== undefined ? input.updated_at : timestamp,
    };
  }

  /** Adds `size` to the counter atomically; returns the last id of the reserved block. */
  private async reserveIds(size: number): Promise<number> {
    const result = await this.storage(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id: COUNTER_ID },
          UpdateExpression: "ADD #last :size",
          ExpressionAttributeNames: { "#last": COUNTER_ATTRIBUTE },
          ExpressionAttributeValues: { ":size": size },
          ReturnValues: "UPDATED_NEW",
        }),
      ),
    );
    const last = result.Attributes?.[COUNTER_ATTRIBUTE] as number | undefined;
    if (last === undefined || !Number.isSafeInteger(last)) {
      throw new StorageError("IdSpaceExhausted: the id counter returned no usable id");
    }
    return last;
  }

  /** Records a key as pending for `owner`, unless it is live; expired or abandoned keys are retaken. */
  private async claimKey(table: string, request: IdempotentRequest, owner: string) {
    const record: KeyRecord = {
      key: request.key,
      fingerprint: request.fingerprint,
      owner,
      state: "pending",
      lease_until: Date.now() + CLAIM_LEASE_MS,
      expires_at: epochSeconds() + IDEMPOTENCY_TTL_SECONDS,
    };
    try {
      await this.storage(() =>
        this.db.send(
          new PutCommand({
            TableName: table,
            Item: record,
            ConditionExpression:
              "attribute_not_exists(#key) OR expires_at < :now_s OR " +
              "(#state = :pending AND lease_until < :now_ms AND fingerprint = :fingerprint)",
            ExpressionAttributeNames: { "#key": "key", "#state": "state" },
            ExpressionAttributeValues: {
              ":now_s": epochSeconds(),
              ":now_ms": Date.now(),
              ":pending": "pending",
              ":fingerprint": request.fingerprint,
            },
          }),
        ),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionFailed) return false;
      throw error;
    }
  }

  private async readKey(table: string, key: string): Promise<KeyRecord | undefined> {
    const result = await this.storage(() =>
      this.db.send(new GetCommand({ TableName: table, Key: { key }, ConsistentRead: true })),
    );
    return result.Item as KeyRecord | undefined;
  }

  /**
   * Writes the post and marks the key done in one transaction, so a post exists exactly when
   * its key says so. Returns undefined when the key was taken over by another request.
   */
  private async createClaimed(table: string, input: NewPost, key: string, owner: string) {
    const finish = (update: string, values: Record<string, unknown>) => ({
      TableName: table,
      Key: { key },
      UpdateExpression: `SET #state = :done, ${update} REMOVE lease_until`,
      ConditionExpression: "#owner = :owner",
      ExpressionAttributeNames: { "#state": "state", "#owner": "owner", "#status": "status" },
      ExpressionAttributeValues: { ":done": "done", ":owner": owner, ...values },
    });
    try {
      for (let collisions = 0; ; collisions++) {
        const post = await this.newPost(input, collisions);
        try {
          await this.storage(() =>
            this.db.send(
              new TransactWriteCommand({
                TransactItems: [
                  {
                    Put: {
                      TableName: this.tableName,
                      Item: post,
                      ConditionExpression: "attribute_not_exists(id)",
                    },
                  },
                  {
                    Update: finish("#status = :status, post = :post", {
                      ":status": 201,
                      ":post": post,
                    }),
                  },
                ],
              }),
            ),
          );
          return post;
        } catch (error) {
          if (!(error instanceof ConditionFailed)) throw error;
          const [postTaken, keyLost] = error.reasons.map(
            (code) => code === "ConditionalCheckFailed",
          );
          if (keyLost) return undefined;
          if (postTaken && input.id !== undefined) {
            const conflict = finish("#status = :status, conflict_id = :id", {
              ":status": 409,
              ":id": input.id,
            });
            try {
              await this.storage(() => this.db.send(new UpdateCommand(conflict)));
            } catch (failure) {
              if (failure instanceof ConditionFailed) return undefined;
              throw failure;
            }
            throw new ConflictError(input.id);
          }
        }
      }
    } catch (error) {
      if (error instanceof StorageError) await this.releaseKey(table, key, owner);
      throw error;
    }
  }

  /** Frees a claimed key after a storage failure, so the client's retry can run again. */
  private async releaseKey(table: string, key: string, owner: string): Promise<void> {
    try {
      await this.db.send(
        new DeleteCommand({
          TableName: table,
          Key: { key },
          ConditionExpression: "#owner = :owner AND #state = :pending",
          ExpressionAttributeNames: { "#owner": "owner", "#state": "state" },
          ExpressionAttributeValues: { ":owner": owner, ":pending": "pending" },
        }),
      );
    } catch {
      // The lease expires on its own; a retry after it takes the key over.
    }
  }

  /** Runs one storage call: a failed condition becomes ConditionFailed, any other SDK failure a StorageError. */
  private async storage<T>(call: () => Promise<T>): Promise<T> {
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
      const tables = [this.tableName, this.options.idempotencyTableName];
      const description = `${error.name}: ${sanitizeErrorMessage(error.message, tables)}`;
      throw new StorageError(description, { cause: error });
    }
  }
}
