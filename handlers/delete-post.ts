// Adapter: DELETE /api/post/{post_pk} → repository.delete → 204, whether or not the post existed.
import { httpHandler, noContent } from "../lib/http.js";
import type { Logger } from "../lib/logger.js";
import { parsePostId } from "../lib/post.js";
import type { PostRepository } from "../lib/repository.js";
import { logger, repository } from "../lib/runtime.js";

/** Builds the delete handler over a repository. */
export const deletePost = (posts: PostRepository, log: Logger = logger) =>
  httpHandler(async (request) => {
    const id = parsePostId(request.postId);
    await posts.delete(id);
    return noContent(`Blog post #${id} deleted`);
  }, log);

export const handler = deletePost(repository);
