// Storage adapter: the only place that knows the posts table's layout and the id counter.
import { randomUUID } from "node:crypto";
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  paginateScan,
} from "@aws-sdk/lib-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import { ConditionFailed, callStorage } from "./dynamodb.js";
import {
  BadRequestError,
  ConflictError,
  InProgressError,
  NotFoundError,
  StorageError,
  UnprocessableEntityError,
} from "./errors.js";
import { IdAllocator } from "./id-allocator.js";
import type { IdempotentRequest } from "./idempotency.js";
import { IdempotencyKeyTable, type KeyOutcome, epochSeconds } from "./idempotency-keys.js";
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

/** How long a retry waits for the first request with its key to finish. */
const RETRY_WAIT_MS = 5_000;

/** Whether a stored item (as DynamoDB returned it) is exactly this post. */
function samePost(existing: Record<string, unknown> | undefined, post: Post): boolean {
  if (!existing) return false;
  const stored = unmarshall(existing as Parameters<typeof unmarshall>[0]);
  return (Object.keys(post) as (keyof Post)[]).every((key) => stored[key] === post[key]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A DynamoDB-backed repository over the posts table (and the Idempotency-Key table). */
export class DynamoPostRepository implements PostRepository {
  private readonly ids: IdAllocator;
  private readonly keys: IdempotencyKeyTable | undefined;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: { idempotencyTableName?: string; idBlockSize?: number } = {},
  ) {
    this.ids = new IdAllocator((size) => this.reserveIds(size), options.idBlockSize ?? 1);
    if (options.idempotencyTableName) {
      this.keys = new IdempotencyKeyTable(db, options.idempotencyTableName);
    }
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
    const keys = this.keys;
    if (!keys) throw new BadRequestError("Idempotency-Key is not enabled on this deployment");
    const waitUntil = Date.now() + RETRY_WAIT_MS;
    for (;;) {
      const owner = randomUUID();
      const claimed = await keys.claim(request, owner);
      const record = claimed ? undefined : await keys.read(request.key);
      // A claim whose answer was lost shows up as a record this request owns.
      if (claimed || (record?.owner === owner && record.state === "pending")) {
        const post = await this.createClaimed(keys, input, request.key, owner);
        if (post) return post;
        continue; // another request took the key over meanwhile: use its outcome
      }
      if (!record || record.expires_at < epochSeconds()) continue;
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

  /**
   * Writes the post and marks the key done in one transaction, so a post exists exactly when
   * its key says so. Returns undefined when the key was taken over by another request.
   */
  private async createClaimed(
    keys: IdempotencyKeyTable,
    input: NewPost,
    key: string,
    owner: string,
  ): Promise<Post | undefined> {
    const record = (outcome: KeyOutcome) => keys.finish(key, owner, outcome);
    try {
      for (let collisions = 0; ; collisions++) {
        const post = await this.newPost(input, collisions);
        const putPost = {
          TableName: this.tableName,
          Item: post,
          ConditionExpression: "attribute_not_exists(id)",
        };
        try {
          await this.storage(() =>
            this.db.send(
              new TransactWriteCommand({
                TransactItems: [{ Put: putPost }, { Update: record({ status: 201, post }) }],
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
            try {
              await this.storage(() =>
                this.db.send(new UpdateCommand(record({ status: 409, id: input.id as number }))),
              );
            } catch (failure) {
              if (failure instanceof ConditionFailed) return undefined;
              throw failure;
            }
            throw new ConflictError(input.id);
          }
        }
      }
    } catch (error) {
      if (error instanceof StorageError) await keys.release(key, owner);
      throw error;
    }
  }

  private storage<T>(call: () => Promise<T>): Promise<T> {
    return callStorage(call, [this.tableName, this.keys?.tableName]);
  }
}
