// Adapter: POST /api/post → validateCreate → repository.create → 201 with the post.
import { created, httpHandler } from "../lib/http.js";
import type { Logger } from "../lib/logger.js";
import { serializePost, validateCreate } from "../lib/post.js";
import type { PostRepository } from "../lib/repository.js";
import { logger, repository } from "../lib/runtime.js";

/** Builds the create handler over a repository. */
export const createPost = (posts: PostRepository, log: Logger = logger) =>
  httpHandler(async (request) => {
    const post = await posts.create(validateCreate(request.jsonObject()));
    return created(serializePost(post), `/api/post/${post.id}`);
  }, log);

export const handler = createPost(repository);
