// Adapter: GET /api/post → repository.list → every post, ascending by id.
import { httpHandler, ok } from "../lib/http.js";
import type { Logger } from "../lib/logger.js";
import { serializePost } from "../lib/post.js";
import type { PostRepository } from "../lib/repository.js";
import { logger, repository } from "../lib/runtime.js";

/** Builds the list handler over a repository. */
export const listPosts = (posts: PostRepository, log: Logger = logger) =>
  httpHandler(async () => ok((await posts.list()).map(serializePost)), log);

export const handler = listPosts(repository);
