// Adapter: POST /api/post → validateCreate → repository.create (once per Idempotency-Key) → 201.
import { created, httpHandler } from "../lib/http.js";
import { fingerprintPayload, parseIdempotencyKey } from "../lib/idempotency.js";
import type { Logger } from "../lib/logger.js";
import { serializePost, validateCreate } from "../lib/post.js";
import type { PostRepository } from "../lib/repository.js";
import { logger, repository } from "../lib/runtime.js";

/** Builds the create handler over a repository. */
export const createPost = (posts: PostRepository, log: Logger = logger) =>
  httpHandler(async (request) => {
    const payload = request.jsonObject();
    const input = validateCreate(payload);
    const key = request.header("idempotency-key");
    const post =
      key === undefined
        ? await posts.create(input)
        : await posts.createOnce(input, {
            key: parseIdempotencyKey(key),
            fingerprint: fingerprintPayload(payload),
          });
    return created(serializePost(post), `/api/post/${post.id}`);
  }, log);

export const handler = createPost(repository);
