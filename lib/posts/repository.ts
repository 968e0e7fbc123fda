// The storage the routes depend on, as an interface: lib/storage/ implements it over DynamoDB,
// the tests over memory.
import type { IdempotentRequest } from "./idempotency-key.js";
import type { NewPost, Post, PostChanges } from "./post.js";

/**
 * The request storage works for: its deadline's signal (once it fires, the call in flight is
 * cancelled and no later one starts) and the counts its metrics report, which storage names.
 * The edge makes one per request and it travels as a parameter only, never as ambient state:
 * `forRequest` binds it, and below it each call takes the signal and counts it uses, so a call's
 * signature shows what can cancel it and what it counts. The one exception is DynamoDB's
 * consumed capacity, charged from inside the SDK, which no parameter reaches
 * (lib/storage/capacity.ts).
 */
export interface RequestScope {
  signal?: AbortSignal;
  counts?: Record<string, number>;
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

/** What the routes need from storage, bound to one request: domain arguments only. */
export interface PostRepository {
  /** Every post, ascending by id, as the JSON array a list answers with, and its ETag. */
  listJson(): Promise<ListBody>;
  /** The post with this id, or undefined. */
  get(id: number): Promise<Post | undefined>;
  /** Stores a new post; throws PostExistsError when a client-chosen id is taken. */
  create(post: NewPost): Promise<Post>;
  /**
   * Like create, but at most once per Idempotency-Key: a retry with the same body gets the
   * first outcome again; otherwise throws IdempotencyError.
   */
  createOnce(post: NewPost, request: IdempotentRequest): Promise<Post>;
  /** Applies changes and refreshes `updated_at`; throws PostNotFoundError when there is no post. */
  update(id: number, changes: PostChanges): Promise<Post>;
  /** Deletes the post if there is one. */
  delete(id: number): Promise<void>;
}

type Counts = RequestScope["counts"];

/**
 * Storage as an instance holds it (lib/storage/ over DynamoDB, the tests over memory): each call
 * takes the request's signal and counts last. `forRequest` binds them once per request.
 */
export interface PostStorage {
  listJson(signal?: AbortSignal, counts?: Counts): Promise<ListBody>;
  get(id: number, signal?: AbortSignal, counts?: Counts): Promise<Post | undefined>;
  create(post: NewPost, signal?: AbortSignal, counts?: Counts): Promise<Post>;
  createOnce(
    post: NewPost,
    request: IdempotentRequest,
    signal?: AbortSignal,
    counts?: Counts,
  ): Promise<Post>;
  update(id: number, changes: PostChanges, signal?: AbortSignal, counts?: Counts): Promise<Post>;
  delete(id: number, signal?: AbortSignal, counts?: Counts): Promise<void>;
  /**
   * One small read through the same client and pipeline the requests use, so that credentials,
   * the endpoint and the connection are ready before the first request. Never writes.
   */
  warmUp(signal?: AbortSignal): Promise<void>;
}

/** `storage` bound to one request's scope, as the routes use it. */
export function forRequest(storage: PostStorage, { signal, counts }: RequestScope): PostRepository {
  return {
    listJson: () => storage.listJson(signal, counts),
    get: (id) => storage.get(id, signal, counts),
    create: (post) => storage.create(post, signal, counts),
    createOnce: (post, request) => storage.createOnce(post, request, signal, counts),
    update: (id, changes) => storage.update(id, changes, signal, counts),
    delete: (id) => storage.delete(id, signal, counts),
  };
}
