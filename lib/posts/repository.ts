// The storage the routes depend on, as an interface: lib/storage/ implements it over DynamoDB,
// the tests over memory.
import type { IdempotentRequest } from "./idempotency-key.js";
import type { NewPost, Post, PostChanges } from "./post.js";

/**
 * What storage did for one request that the request's metrics report (lib/http/metrics.ts). A
 * caller that wants them passes an object; storage adds to the counts that apply, so a count is
 * present only where its path was taken (a list is from memory, patched or scanned).
 */
export type StorageCounts = Partial<
  Record<
    /** A list answered from the instance's memory, patched with the posts written since, or by a Scan. */
    | "ListFromMemory"
    | "ListPatched"
    | "ListScanned"
    /** DynamoDB's consumed capacity, summed over every call the request made. */
    | "ReadUnits"
    | "WriteUnits"
    /** Counter-issued ids found already taken by a client-chosen id, and skipped. */
    | "IdsSkipped"
    /** A create answered with the stored outcome of an earlier one with its Idempotency-Key. */
    | "IdempotentReplays",
    number
  >
>;

/** Adds `n` to one of the counts, when the caller asked for them. */
export function addCount(
  counts: StorageCounts | undefined,
  name: keyof StorageCounts,
  n = 1,
): void {
  if (counts) counts[name] = (counts[name] ?? 0) + n;
}

/**
 * The list as it is answered: the JSON array of every post, ascending by id, as pieces (UTF-8
 * bytes) whose concatenation is the array, never one string of the whole list; its size in
 * bytes and its ETag.
 */
export interface ListBody {
  json: readonly Uint8Array[];
  bytes: number;
  etag: string;
}

/**
 * What the routes need from storage. Every method takes the request's abort signal: once it
 * fires, the storage call in flight is cancelled and no later one starts. Each also takes the
 * request's StorageCounts, for its metrics.
 */
export interface PostRepository {
  /** Every post, ascending by id, as the JSON array a list answers with, and its ETag. */
  listJson(signal?: AbortSignal, counts?: StorageCounts): Promise<ListBody>;
  /** The post with this id, or undefined. */
  get(id: number, signal?: AbortSignal, counts?: StorageCounts): Promise<Post | undefined>;
  /** Stores a new post; throws PostExistsError when a client-chosen id is taken. */
  create(post: NewPost, signal?: AbortSignal, counts?: StorageCounts): Promise<Post>;
  /**
   * Like create, but at most once per Idempotency-Key: a retry with the same body gets the
   * first outcome again; otherwise throws IdempotencyError.
   */
  createOnce(
    post: NewPost,
    request: IdempotentRequest,
    signal?: AbortSignal,
    counts?: StorageCounts,
  ): Promise<Post>;
  /** Applies changes and refreshes `updated_at`; throws PostNotFoundError when there is no post. */
  update(
    id: number,
    changes: PostChanges,
    signal?: AbortSignal,
    counts?: StorageCounts,
  ): Promise<Post>;
  /** Deletes the post if there is one. */
  delete(id: number, signal?: AbortSignal, counts?: StorageCounts): Promise<void>;
  /**
   * One small read through the same client and pipeline the requests use, so that credentials,
   * the endpoint and the connection are ready before the first request. Never writes.
   */
  warmUp(signal?: AbortSignal): Promise<void>;
}
