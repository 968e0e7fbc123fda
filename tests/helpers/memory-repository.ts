// Test helper: post storage in memory, for handler tests where DynamoDB's behaviour is not
// what is under test, so they run without Java. It keeps the repository's contract: counter ids
// that skip client-chosen ones, 409 for a taken id, 404 on update, Idempotency-Key replays.
import { IdempotencyError, PostExistsError, PostNotFoundError } from "../../lib/posts/errors.js";
import type { IdempotentRequest } from "../../lib/posts/idempotency-key.js";
import {
  type NewPost,
  type Post,
  type PostChanges,
  postToStore,
  serializePost,
} from "../../lib/posts/post.js";
import { etagOf } from "../../lib/posts/etag.js";
import type { ListBody, PostStorage } from "../../lib/posts/repository.js";
import { now } from "../../lib/posts/timestamps.js";

/** Posts in a Map; `idempotency: false` behaves like a deployment without the keys table. */
export class InMemoryPostRepository implements PostStorage {
  private readonly posts = new Map<number, Post>();
  private readonly keys = new Map<string, { fingerprint: string; outcome: Post | number }>();
  private lastId = 0;

  constructor(private readonly options: { idempotency?: boolean } = {}) {}

  async warmUp(): Promise<void> {}

  /** Every stored post, as a deep copy to compare before and after a call. */
  snapshot(): Post[] {
    return structuredClone([...this.posts.values()]);
  }

  async list(): Promise<Post[]> {
    return [...this.posts.values()].sort((a, b) => a.id - b.id);
  }

  /** The list's JSON and ETag, built anew on every call (no cache to keep fresh here). */
  async listJson(): Promise<ListBody> {
    const json = JSON.stringify((await this.list()).map((post) => serializePost(post)));
    return { json: [Buffer.from(json)], bytes: Buffer.byteLength(json), etag: etagOf(json) };
  }

  async get(id: number): Promise<Post | undefined> {
    return this.posts.get(id);
  }

  async create(input: NewPost): Promise<Post> {
    if (input.id !== undefined && this.posts.has(input.id)) throw new PostExistsError(input.id);
    let id = input.id;
    while (id === undefined || this.posts.has(id)) id = ++this.lastId;
    const post = postToStore(input, id);
    this.posts.set(id, post);
    return post;
  }

  async createOnce(input: NewPost, request: IdempotentRequest): Promise<Post> {
    if (this.options.idempotency === false) throw new IdempotencyError("disabled");
    const seen = this.keys.get(request.key);
    if (seen && seen.fingerprint !== request.fingerprint) throw new IdempotencyError("reused");
    if (seen) {
      if (typeof seen.outcome === "number") throw new PostExistsError(seen.outcome);
      return seen.outcome;
    }
    try {
      const post = await this.create(input);
      this.keys.set(request.key, { fingerprint: request.fingerprint, outcome: post });
      return post;
    } catch (error) {
      if (error instanceof PostExistsError && input.id !== undefined) {
        this.keys.set(request.key, { fingerprint: request.fingerprint, outcome: input.id });
      }
      throw error;
    }
  }

  async update(id: number, changes: PostChanges): Promise<Post> {
    const post = this.posts.get(id);
    if (!post) throw new PostNotFoundError(id);
    const updated = { ...post, ...changes, updated_at: now() };
    this.posts.set(id, updated);
    return updated;
  }

  async delete(id: number): Promise<void> {
    this.posts.delete(id);
  }
}
