// A create at most once per Idempotency-Key. Claim the key, write the
// post and the key's outcome in one transaction, replay that outcome to retries, take over a
// claim whose owner died, release the claim when storage fails.
import { randomUUID } from "node:crypto";
import { TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { IdempotencyError, PostExistsError, StorageError } from "../posts/errors.js";
import type { IdempotentRequest } from "../posts/idempotency-key.js";
import { type NewPost, type Post, postToStore } from "../posts/post.js";
import { type StorageCounts, addCount } from "./counts.js";
import { ID_TAKEN, type IdAllocator } from "./id-allocator.js";
import {
  type IdempotencyKeyTable,
  type KeyOutcome,
  epochSeconds,
} from "./idempotency-key-table.js";
import type { PostsTable } from "./posts-table.js";
import { ConditionFailed, type Sender } from "./sender.js";

/** How long a retry waits for the first request with its key to finish. */
const RETRY_WAIT_MS = 5_000;

/** What a transaction returns when another request took the key over meanwhile. */
const KEY_LOST = Symbol("key lost");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The Idempotency-Key protocol over the posts table and the keys table. */
export class IdempotentCreate {
  constructor(
    private readonly sender: Sender,
    private readonly posts: PostsTable,
    private readonly ids: IdAllocator,
    private readonly keys: IdempotencyKeyTable,
  ) {}

  /** Creates the post, or returns (or rethrows) the outcome of the first request with this key. */
  async create(
    input: NewPost,
    request: IdempotentRequest,
    signal?: AbortSignal,
    counts?: StorageCounts,
  ): Promise<Post> {
    const waitUntil = Date.now() + RETRY_WAIT_MS;
    for (;;) {
      const owner = randomUUID();
      const claim = await this.keys.claim(request, owner, signal);
      const record = claim.claimed ? undefined : claim.record;
      // A claim whose answer was lost shows up as a record this request owns (owners are fresh
      // for each try, and only an owner finishes its record, so it is still pending).
      if (claim.claimed || record?.owner === owner) {
        const post = await this.createClaimed(input, request.key, owner, signal, counts);
        if (post) return post;
        continue; // another request took the key over meanwhile: use its outcome
      }
      if (!record || record.expires_at < epochSeconds()) continue;
      if (record.fingerprint !== request.fingerprint) throw new IdempotencyError("reused");
      if (record.state === "done") {
        addCount(counts, "IdempotentReplays");
        if (record.status === 409) throw new PostExistsError(record.conflict_id ?? 0);
        return record.post as Post;
      }
      // Still pending: the next claim takes the key over if its lease has run out by then.
      if (Date.now() > waitUntil) throw new IdempotencyError("in-progress");
      // Stryker disable next-line ArithmeticOperator: the pause only spreads retries out; its length changes no outcome
      await sleep(50 + Math.random() * 100);
    }
  }

  /** The post and its key's outcome in one transaction: the post, or why it was not written. */
  private async writeWithKey(
    post: Post,
    finish: (outcome: KeyOutcome) => ReturnType<IdempotencyKeyTable["finish"]>,
    signal?: AbortSignal,
  ): Promise<Post | typeof ID_TAKEN | typeof KEY_LOST> {
    const items = [{ Put: this.posts.putNew(post) }, { Update: finish({ status: 201, post }) }];
    try {
      await this.sender.send(new TransactWriteCommand({ TransactItems: items }), signal);
      return post;
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      const keyLost = error.reasons[1] === "ConditionalCheckFailed";
      return keyLost ? KEY_LOST : ID_TAKEN;
    }
  }

  /**
   * Writes the post and marks the key done in one transaction, so a post exists exactly when
   * its key says so. Returns undefined when the key was taken over by another request.
   */
  private async createClaimed(
    input: NewPost,
    key: string,
    owner: string,
    signal?: AbortSignal,
    counts?: StorageCounts,
  ) {
    const finish = (outcome: KeyOutcome) => this.keys.finish(key, owner, outcome);
    const write = (id: number) => this.writeWithKey(postToStore(input, id), finish, signal);
    try {
      const written =
        input.id === undefined
          ? await this.ids.withFreeId(write, signal, counts)
          : await write(input.id);
      if (written === KEY_LOST) return undefined;
      if (written !== ID_TAKEN) return written;
      const conflictId = input.id as number;
      try {
        const record = finish({ status: 409, id: conflictId });
        await this.sender.send(new UpdateCommand(record), signal);
      } catch (failure) {
        if (failure instanceof ConditionFailed) return undefined;
        throw failure;
      }
      throw new PostExistsError(conflictId);
    } catch (error) {
      if (error instanceof StorageError) await this.keys.release(key, owner, signal);
      throw error;
    }
  }
}
