// Adapter: PUT /api/post/{post_pk} → validateUpdate → repository.update → the post, or 404.
import { httpHandler, ok } from "../lib/http.js";
import type { Logger } from "../lib/logger.js";
import { parsePostId, serializePost, validateUpdate } from "../lib/post.js";
import type { PostRepository } from "../lib/repository.js";
import { logger, repository } from "../lib/runtime.js";

/** Builds the update handler over a repository. */
export const updatePost = (posts: PostRepository, log: Logger = logger) =>
  httpHandler(async (request) => {
    const id = parsePostId(request.postId);
    const changes = validateUpdate(request.jsonObject());
    return ok(serializePost(await posts.update(id, changes)));
  }, log);

export const handler = updatePost(repository);
