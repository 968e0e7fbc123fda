// Adapter: GET /api/post/{post_pk} → repository.get → the post, or 404.
import { NotFoundError } from "../lib/errors.js";
import { httpHandler, ok } from "../lib/http.js";
import type { Logger } from "../lib/logger.js";
import { parsePostId, serializePost } from "../lib/post.js";
import type { PostRepository } from "../lib/repository.js";
import { logger, repository } from "../lib/runtime.js";

/** Builds the get handler over a repository. */
export const getPost = (posts: PostRepository, log: Logger = logger) =>
  httpHandler(async (request) => {
    const id = parsePostId(request.postId);
    const post = await posts.get(id);
    if (!post) throw new NotFoundError(id);
    return ok(serializePost(post));
  }, log);

export const handler = getPost(repository);
