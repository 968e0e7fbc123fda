// Storage adapter, entry: what the handlers need from storage, over the posts table, the id
// allocator and the Idempotency-Key protocol.
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { ChangeMarker } from "./change-marker.js";
import { ConflictError } from "./errors.js";
import { ID_TAKEN, IdAllocator } from "./id-allocator.js";
import type { IdempotentRequest } from "./idempotency.js";
import { IdempotencyError, IdempotentCreate } from "./idempotent-create.js";
import { IdempotencyKeyTable } from "./idempotency-keys.js";
import { type ListBody, ListCache } from "./list-cache.js";
import { type NewPost, type Post, type PostChanges, postToStore } from "./post.js";
import { PostsTable } from "./posts-table.js";

/**
 * What the handlers need from storage. Every method takes the request's abort signal: once it
 * fires, the storage call in flight is cancelled and no later one starts.
 */
export interface PostRepository {
  /** Every post, ascending by id, as the JSON array a list answers with, and its ETag. */
  listJson(signal?: AbortSignal): Promise<ListBody>;
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

/**
 * A DynamoDB-backed repository over the posts table (and the Idempotency-Key table). Every
 * write advances the change marker after its item is written and before it returns, so a list
 * that starts after a write was acknowledged never answers from a body built before it.
 */
export class DynamoPostRepository implements PostRepository {
  private readonly table: PostsTable;
  private readonly ids: IdAllocator;
  private readonly once: IdempotentCreate | undefined;
  private readonly marker: ChangeMarker;
  private readonly cache: ListCache;

  constructor(
    db: DynamoDBDocumentClient,
    tableName: string,
    options: { idempotencyTableName?: string; idBlockSize?: number; listMaxAgeMs?: number } = {},
  ) {
    const keysName = options.idempotencyTableName;
    this.table = new PostsTable(db, tableName, [tableName, keysName]);
    this.marker = new ChangeMarker(this.table);
    this.cache = new ListCache(this.table, this.marker, options.listMaxAgeMs);
    this.ids = new IdAllocator(
      (size, signal) => this.table.reserveIds(size, signal),
      options.idBlockSize ?? 1,
    );
    if (keysName) {
      const keys = new IdempotencyKeyTable(db, keysName);
      this.once = new IdempotentCreate(this.table, this.ids, keys);
    }
  }

  /** Every post, ascending by id, straight from a Scan (no cache). */
  list(signal?: AbortSignal): Promise<Post[]> {
    return this.table.list(signal);
  }

  listJson(signal?: AbortSignal): Promise<ListBody> {
    return this.cache.read(signal);
  }

  get(id: number, signal?: AbortSignal): Promise<Post | undefined> {
    return this.table.get(id, signal);
  }

  async create(input: NewPost, signal?: AbortSignal): Promise<Post> {
    const write = (id: number) => this.table.put(postToStore(input, id), signal);
    const written =
      input.id === undefined ? await this.ids.withFreeId(write, signal) : await write(input.id);
    if (written === ID_TAKEN) throw new ConflictError(input.id as number);
    await this.marker.advance(signal);
    return written;
  }

  async createOnce(input: NewPost, request: IdempotentRequest, signal?: AbortSignal) {
    if (!this.once) throw new IdempotencyError("disabled");
    const post = await this.once.create(input, request, signal);
    // Replays advance it too: a first attempt that wrote the post but failed here answered 500.
    await this.marker.advance(signal);
    return post;
  }

  async update(id: number, changes: PostChanges, signal?: AbortSignal): Promise<Post> {
    const post = await this.table.update(id, changes, signal);
    await this.marker.advance(signal);
    return post;
  }

  async delete(id: number, signal?: AbortSignal): Promise<void> {
    await this.table.delete(id, signal);
    await this.marker.advance(signal);
  }
}
