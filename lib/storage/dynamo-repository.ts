// The repository over DynamoDB: the posts table, the id allocator, the list cache and the
// Idempotency-Key protocol behind the interface the routes use (lib/posts/repository.ts).
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { IdempotencyError, PostExistsError } from "../posts/errors.js";
import type { IdempotentRequest } from "../posts/idempotency-key.js";
import { type NewPost, type Post, type PostChanges, postToStore } from "../posts/post.js";
import type { ListBody, PostStorage } from "../posts/repository.js";
import type { StorageCounts } from "./counts.js";
import { metered } from "./capacity.js";
import { ChangeMarker } from "./change-marker.js";
import { ID_TAKEN, IdAllocator } from "./id-allocator.js";
import { IdempotencyKeyTable } from "./idempotency-key-table.js";
import { IdempotentCreate } from "./idempotent-create.js";
import { ListCache } from "./list-cache.js";
import { COUNTER_ID, PostsTable } from "./posts-table.js";
import { Sender } from "./sender.js";

/**
 * A DynamoDB-backed repository over the posts table (and the Idempotency-Key table). Every
 * write advances the change marker after its item is written and before it returns, so a list
 * that starts after a write was acknowledged never answers from a body built before it. Every
 * call charges the DynamoDB capacity it consumed to the request's counts.
 */
export class DynamoPostRepository implements PostStorage {
  private readonly table: PostsTable;
  private readonly ids: IdAllocator;
  private readonly once: IdempotentCreate | undefined;
  private readonly marker: ChangeMarker;
  private readonly cache: ListCache;

  constructor(
    db: DynamoDBDocumentClient,
    tableName: string,
    options: {
      idempotencyTableName?: string;
      idBlockSize?: number;
      listMaxAgeMs?: number;
      unrecordedGraceMs?: number;
    } = {},
  ) {
    const keysName = options.idempotencyTableName;
    const sender = new Sender(db, [tableName, keysName]);
    this.table = new PostsTable(sender, tableName);
    this.marker = new ChangeMarker(sender, tableName);
    this.cache = new ListCache(this.table, this.marker, {
      maxAgeMs: options.listMaxAgeMs,
      graceMs: options.unrecordedGraceMs,
    });
    this.ids = new IdAllocator(
      (size, signal) => this.table.reserveIds(size, signal),
      options.idBlockSize ?? 1,
    );
    if (keysName) {
      const keys = new IdempotencyKeyTable(sender, keysName);
      this.once = new IdempotentCreate(sender, this.table, this.ids, keys);
    }
  }

  listJson(signal?: AbortSignal, counts?: StorageCounts): Promise<ListBody> {
    return metered(counts, () => this.cache.read(signal, counts));
  }

  get(id: number, signal?: AbortSignal, counts?: StorageCounts): Promise<Post | undefined> {
    return metered(counts, () => this.table.get(id, signal));
  }

  create(input: NewPost, signal?: AbortSignal, counts?: StorageCounts): Promise<Post> {
    return metered(counts, async () => {
      const write = (id: number) => this.table.put(postToStore(input, id), signal);
      const written =
        input.id === undefined
          ? await this.ids.withFreeId(write, signal, counts)
          : await write(input.id);
      if (written === ID_TAKEN) throw new PostExistsError(input.id as number);
      await this.marker.advance(written.id, signal);
      return written;
    });
  }

  createOnce(
    input: NewPost,
    request: IdempotentRequest,
    signal?: AbortSignal,
    counts?: StorageCounts,
  ): Promise<Post> {
    const once = this.once;
    if (!once) return Promise.reject(new IdempotencyError("disabled"));
    return metered(counts, async () => {
      const post = await once.create(input, request, signal, counts);
      // Replays advance it too: a first attempt that wrote the post but failed here answered 500.
      await this.marker.advance(post.id, signal);
      return post;
    });
  }

  update(id: number, changes: PostChanges, signal?: AbortSignal, counts?: StorageCounts) {
    return metered(counts, async () => {
      const post = await this.table.update(id, changes, signal);
      await this.marker.advance(id, signal);
      return post;
    });
  }

  async warmUp(signal?: AbortSignal): Promise<void> {
    // The counter's item: a read every role may make (docs/deploying.md), of one small item,
    // metered like a request's calls so that path is ready too; its counts are init's, unreported.
    await metered({}, () => this.table.get(COUNTER_ID, signal));
  }

  delete(id: number, signal?: AbortSignal, counts?: StorageCounts): Promise<void> {
    return metered(counts, async () => {
      await this.table.delete(id, signal);
      await this.marker.advance(id, signal);
    });
  }
}
