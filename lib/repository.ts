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

export { COUNTER_ID } from "./posts-table.js";

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
   * first outcome again; otherwise throws IdempotencyError.
   */
  createOnce(post: NewPost, request: IdempotentRequest): Promise<Post>;
  /** Applies changes and refreshes `updated_at`; throws NotFoundError when there is no post. */
  update(id: number, changes: PostChanges): Promise<Post>;
  /** Deletes the post if there is one. */
  delete(id: number): Promise<void>;
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
    this.ids = new IdAllocator((size) => this.table.reserveIds(size), options.idBlockSize ?? 1);
    if (keysName) {
      const keys = new IdempotencyKeyTable(db, keysName);
      this.once = new IdempotentCreate(db, this.table, this.ids, keys);
    }
  }

  list(): Promise<Post[]> {
    return this.table.list();
  }

  get(id: number): Promise<Post | undefined> {
    return this.table.get(id);
  }

  async create(input: NewPost): Promise<Post> {
    const write = (id: number) => this.table.put(postToStore(input, id));
    if (input.id === undefined) return this.ids.withFreeId(write);
    const written = await write(input.id);
    if (written === ID_TAKEN) throw new ConflictError(input.id);
    return written;
  }

  createOnce(input: NewPost, request: IdempotentRequest): Promise<Post> {
    if (!this.once) return Promise.reject(new IdempotencyError("disabled"));
    return this.once.create(input, request);
  }

  update(id: number, changes: PostChanges): Promise<Post> {
    return this.table.update(id, changes);
  }

  delete(id: number): Promise<void> {
    return this.table.delete(id);
  }
}
