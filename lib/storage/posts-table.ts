// The posts table: its layout, its condition expressions and the id counter.
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  type PutCommandInput,
  UpdateCommand,
  paginateScan,
} from "@aws-sdk/lib-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import { PostNotFoundError, StorageError } from "../posts/errors.js";
import type { Post, PostChanges } from "../posts/post.js";
import { now } from "../posts/timestamps.js";
import { batchGetIds } from "./batch-get.js";
import { ID_TAKEN } from "./id-allocator.js";
import { UPDATE_ATTEMPTS, restamp, updateInput } from "./post-update.js";
import { VERSION_ATTRIBUTE, firstVersion, withoutVersion } from "./post-version.js";
import { ConditionFailed, type Sender } from "./sender.js";

/**
 * Items per Scan page. A page of 200 posts is done with before the next arrives, so its raw
 * response and items are garbage while they are still small; DynamoDB's default 1 MB pages peak
 * higher (docs/performance.md, The list at any size). It costs no read units: those are per 4 KB.
 */
export const SCAN_PAGE_ITEMS = 200;

/** The id counter's item: no request can name id 0 (path and payload ids are positive). */
export const COUNTER_ID = 0;
const COUNTER_ATTRIBUTE = "last_id";

/** Whether a stored item (as DynamoDB returned it) is exactly this post. */
function samePost(existing: Record<string, unknown> | undefined, post: Post): boolean {
  const stored = existing && unmarshall(existing as Parameters<typeof unmarshall>[0]);
  return !!stored && Object.entries(post).every(([key, value]) => stored[key] === value);
}

/** The posts table: one item per post, plus the counter item and the change marker's shards. */
export class PostsTable {
  constructor(
    private readonly sender: Sender,
    readonly tableName: string,
  ) {}

  /**
   * Hands `take` the posts of each Scan page as it arrives, every page read consistently. Only
   * posts have positive ids: the counter (0) and the change marker (negative ids) are left out.
   */
  async scanPages(take: (posts: Post[]) => void, signal?: AbortSignal): Promise<void> {
    const input = {
      TableName: this.tableName,
      ConsistentRead: true,
      Limit: SCAN_PAGE_ITEMS,
      FilterExpression: "id > :counter",
      ExpressionAttributeValues: { ":counter": COUNTER_ID },
    };
    await this.sender.run(async (client) => {
      const pages = paginateScan({ client }, input, { abortSignal: signal });
      for await (const page of pages) take((page.Items ?? []) as Post[]);
    });
  }

  /** The post with this id, read consistently, or undefined. */
  async get(id: number, signal?: AbortSignal): Promise<Post | undefined> {
    const input = { TableName: this.tableName, Key: { id }, ConsistentRead: true };
    const { Item } = await this.sender.send(new GetCommand(input), signal);
    return Item && (withoutVersion(Item) as Post);
  }

  /** Hands `take` each of these posts that exists, every one read consistently. */
  async getMany(ids: number[], take: (post: Post) => void, signal?: AbortSignal): Promise<void> {
    const found = (item: Record<string, unknown>) => take(item as unknown as Post);
    await batchGetIds(this.sender, this.tableName, ids, found, "changed posts unread", signal);
  }

  /** The write that stores a post only where no item has its id (alone or in a transaction). */
  putNew(post: Post): PutCommandInput & { Item: Post; ConditionExpression: string } {
    return {
      TableName: this.tableName,
      Item: { ...post, [VERSION_ATTRIBUTE]: firstVersion() },
      ConditionExpression: "attribute_not_exists(id)",
    };
  }

  /** Stores a post unless its id is taken; returns ID_TAKEN then. */
  async put(post: Post, signal?: AbortSignal): Promise<Post | typeof ID_TAKEN> {
    try {
      const put = { ...this.putNew(post), ReturnValuesOnConditionCheckFailure: "ALL_OLD" as const };
      await this.sender.send(new PutCommand(put), signal);
      return post;
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      // The SDK retried a write whose answer was lost: the post there is this one.
      return error.retried && samePost(error.existing, post) ? post : ID_TAKEN;
    }
  }

  /** Sets `changes` and a fresh `updated_at` on an existing post; PostNotFoundError when there is none. */
  async update(id: number, changes: PostChanges, signal?: AbortSignal): Promise<Post> {
    let stamp = now();
    for (let attempt = 1; ; attempt++) {
      try {
        const update = new UpdateCommand(updateInput(this.tableName, id, changes, stamp));
        return withoutVersion((await this.sender.send(update, signal)).Attributes ?? {}) as Post;
      } catch (error) {
        if (!(error instanceof ConditionFailed)) throw error;
        const next = restamp(error.existing, now());
        if (next === undefined) throw new PostNotFoundError(id);
        if (attempt === UPDATE_ATTEMPTS) throw new StorageError("the post kept being replaced");
        stamp = next;
      }
    }
  }

  /** Deletes the post if there is one; the counter and marker items are refused. */
  async delete(id: number, signal?: AbortSignal): Promise<void> {
    if (id <= COUNTER_ID) throw new Error("The id counter and the change marker are not posts");
    const input = { TableName: this.tableName, Key: { id } };
    await this.sender.send(new DeleteCommand(input), signal);
  }

  /** Adds `size` to the counter atomically; returns the last id of the reserved block. */
  async reserveIds(size: number, signal?: AbortSignal): Promise<number> {
    const add = new UpdateCommand({
      TableName: this.tableName,
      Key: { id: COUNTER_ID },
      UpdateExpression: "ADD #last :size",
      ExpressionAttributeNames: { "#last": COUNTER_ATTRIBUTE },
      ExpressionAttributeValues: { ":size": size },
      ReturnValues: "UPDATED_NEW",
    });
    const { Attributes } = await this.sender.send(add, signal);
    const last = Attributes?.[COUNTER_ATTRIBUTE] as number;
    if (!Number.isSafeInteger(last)) {
      throw new StorageError("IdSpaceExhausted: the id counter returned no usable id");
    }
    return last;
  }
}
