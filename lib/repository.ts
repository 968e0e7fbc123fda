// Storage adapter, entry: what the handlers need from storage, over the posts table, the id
// allocator and the Idempotency-Key protocol.
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { ConflictError } from "./errors.js";
import { ID_TAKEN, IdAllocator } from "./id-allocator.js";
import type { IdempotentRequest } from "./idempotency.js";
import { IdempotencyError, IdempotentCreate } from "./idempotent-create.js";
import { IdempotencyKeyTable } from "./idempotency-keys.js";
import { type NewPost, type Post, type PostChanges, postToStore } from "./post.js";
import { PostsTable } from "./posts-table.js";

/**
 * What the handlers need from storage. Every method takes the request's abort signal: once it
 * fires, the storage call in flight is cancelled and no later one starts.
 */
export interface PostRepository {
  /** Every post, ascending by id. */
  list(signal?: AbortSignal): Promise<Post[]>;
  /** The post with this id, or undefined. */
  get(id: number, signal?: AbortSignal): Promise<Post | undefined>;
  /** Stores a new post; throws ConflictError when a client-chosen id is taken. */
  create(post: NewPost, signal?: AbortSignal): Promise<Post>;
  /**
   * Like create, but at most once per Idempotency-Key: a retry with the same body gets the
   * first outcome again; otherwise throws IdempotencyError.
   */
  createOnce(post: NewPost, request: IdempotentRequest, signal?: AbortSignal): Promise<Post>;
  /** Applies changes and refreshes `updated_at`; throws NotFoundError when there is no post. */
  update(id: number, changes: PostChanges, signal?: AbortSignal): Promise<Post>;
  /** Deletes the post if there is one. */
  delete(id: number, signal?: AbortSignal): Promise<void>;
}

/** A DynamoDB-backed repository over the posts table (and the Idempotency-Key table). */
export class DynamoPostRepository implements PostRepository {
  private readonly table: PostsTable;
  private readonly ids: IdAllocator;
  private readonly once: IdempotentCreate | undefined;

  constructor(
    db: DynamoDBDocumentClient,
    tableName: string,
    options: { idempotencyTableName?: string; idBlockSize?: number } = {},
  ) {
    const keysName = options.idempotencyTableName;
    this.table = new PostsTable(db, tableName, [tableName, keysName]);
    this.ids = new IdAllocator(
      (size, signal) => this.table.reserveIds(size, signal),
      options.idBlockSize ?? 1,
    );
    if (keysName) {
      const keys = new IdempotencyKeyTable(db, keysName);
      this.once = new IdempotentCreate(db, this.table, this.ids, keys);
    }
  }

  list(signal?: AbortSignal): Promise<Post[]> {
    return this.table.list(signal);
  }

  get(id: number, signal?: AbortSignal): Promise<Post | undefined> {
    return this.table.get(id, signal);
  }

  async create(input: NewPost, signal?: AbortSignal): Promise<Post> {
    const write = (id: number) => this.table.put(postToStore(input, id), signal);
    if (input.id === undefined) return this.ids.withFreeId(write, signal);
    const written = await write(input.id);
    if (written === ID_TAKEN) throw new ConflictError(input.id);
    return written;
  }

  createOnce(input: NewPost, request: IdempotentRequest, signal?: AbortSignal): Promise<Post> {
    if (!this.once) return Promise.reject(new IdempotencyError("disabled"));
    return this.once.create(input, request, signal);
  }

  update(id: number, changes: PostChanges, signal?: AbortSignal): Promise<Post> {
    return this.table.update(id, changes, signal);
  }

  delete(id: number, signal?: AbortSignal): Promise<void> {
    return this.table.delete(id, signal);
  }
}
