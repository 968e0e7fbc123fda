// Storage adapter, posts: the posts table's layout, its condition expressions and the id counter.
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  type PutCommandInput,
  UpdateCommand,
  paginateScan,
} from "@aws-sdk/lib-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import { ConditionFailed, callStorage } from "./dynamodb.js";
import { NotFoundError, StorageError } from "./errors.js";
import { ID_TAKEN } from "./id-allocator.js";
import type { Post, PostChanges } from "./post.js";
import { now } from "./timestamps.js";

/**
 * The id counter lives in the posts table under id 0, which no request can name (path and
 * payload ids are positive), so it can never be read, listed, changed or deleted through the API.
 */
export const COUNTER_ID = 0;
const COUNTER_ATTRIBUTE = "last_id";

/** Whether a stored item (as DynamoDB returned it) is exactly this post. */
function samePost(existing: Record<string, unknown> | undefined, post: Post): boolean {
  if (!existing) return false;
  const stored = unmarshall(existing as Parameters<typeof unmarshall>[0]);
  return (Object.keys(post) as (keyof Post)[]).every((key) => stored[key] === post[key]);
}

/** The posts table: one item per post, plus the counter item and the change marker's shards. */
export class PostsTable {
  constructor(
    readonly db: DynamoDBDocumentClient,
    readonly tableName: string,
    /** Every table name a storage error message must not show. */
    private readonly hiddenNames: (string | undefined)[] = [tableName],
  ) {}

  /**
   * Hands `take` the posts of each Scan page as it arrives, every page read consistently. Only
   * posts have positive ids: the counter (0) and the change marker (negative ids) are left out.
   */
  async scanPages(take: (posts: Post[]) => void, signal?: AbortSignal): Promise<void> {
    const pages = paginateScan(
      { client: this.db },
      {
        TableName: this.tableName,
        ConsistentRead: true,
        FilterExpression: "id > :counter",
        ExpressionAttributeValues: { ":counter": COUNTER_ID },
      },
      { abortSignal: signal },
    );
    await this.call(async () => {
      for await (const page of pages) take((page.Items ?? []) as Post[]);
    });
  }

  /** Every post, ascending by id, from every Scan page. */
  async list(signal?: AbortSignal): Promise<Post[]> {
    const posts: Post[] = [];
    await this.scanPages((page) => posts.push(...page), signal);
    return posts.sort((a, b) => a.id - b.id);
  }

  /** The post with this id, read consistently, or undefined. */
  async get(id: number, signal?: AbortSignal): Promise<Post | undefined> {
    const input = { TableName: this.tableName, Key: { id }, ConsistentRead: true };
    const { Item } = await this.call(() =>
      this.db.send(new GetCommand(input), { abortSignal: signal }),
    );
    return Item as Post | undefined;
  }

  /** The write that stores a post only where no item has its id (alone or in a transaction). */
  putNew(post: Post): PutCommandInput & { Item: Post; ConditionExpression: string } {
    return {
      TableName: this.tableName,
      Item: post,
      ConditionExpression: "attribute_not_exists(id)",
    };
  }

  /** Stores a post unless its id is taken; returns ID_TAKEN then. */
  async put(post: Post, signal?: AbortSignal): Promise<Post | typeof ID_TAKEN> {
    try {
      await this.call(() =>
        this.db.send(
          new PutCommand({ ...this.putNew(post), ReturnValuesOnConditionCheckFailure: "ALL_OLD" }),
          { abortSignal: signal },
        ),
      );
      return post;
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      // The SDK retried a write whose answer was lost: the post there is this one.
      return error.retried && samePost(error.existing, post) ? post : ID_TAKEN;
    }
  }

  /** Sets `changes` and a fresh `updated_at` on an existing post; NotFoundError when there is none. */
  async update(id: number, changes: PostChanges, signal?: AbortSignal): Promise<Post> {
    const names: Record<string, string> = { "#updated_at": "updated_at" };
    const values: Record<string, unknown> = { ":updated_at": now() };
    const assignments = ["#updated_at = :updated_at"];
    for (const [field, value] of Object.entries(changes)) {
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      assignments.push(`#${field} = :${field}`);
    }
    try {
      const { Attributes } = await this.call(() =>
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
          { abortSignal: signal },
        ),
      );
      return Attributes as Post;
    } catch (error) {
      if (error instanceof ConditionFailed) throw new NotFoundError(id);
      throw error;
    }
  }

  /** Deletes the post if there is one; the counter and marker items are refused. */
  async delete(id: number, signal?: AbortSignal): Promise<void> {
    if (id <= COUNTER_ID) throw new Error("The id counter and the change marker are not posts");
    const input = { TableName: this.tableName, Key: { id } };
    await this.call(() => this.db.send(new DeleteCommand(input), { abortSignal: signal }));
  }

  /** Adds `size` to the counter atomically; returns the last id of the reserved block. */
  async reserveIds(size: number, signal?: AbortSignal): Promise<number> {
    const { Attributes } = await this.call(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id: COUNTER_ID },
          UpdateExpression: "ADD #last :size",
          ExpressionAttributeNames: { "#last": COUNTER_ATTRIBUTE },
          ExpressionAttributeValues: { ":size": size },
          ReturnValues: "UPDATED_NEW",
        }),
        { abortSignal: signal },
      ),
    );
    const last = Attributes?.[COUNTER_ATTRIBUTE] as number | undefined;
    if (last === undefined || !Number.isSafeInteger(last)) {
      throw new StorageError("IdSpaceExhausted: the id counter returned no usable id");
    }
    return last;
  }

  /** Runs one call on this table through the shared error mapping. */
  call<T>(run: () => Promise<T>): Promise<T> {
    return callStorage(run, this.hiddenNames);
  }
}
