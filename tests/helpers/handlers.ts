// Test helper: the five handlers built over one repository, as the deployment builds them.
import { createPost } from "../../handlers/create-post.js";
import { deletePost } from "../../handlers/delete-post.js";
import { getPost } from "../../handlers/get-post.js";
import { listPosts } from "../../handlers/list-posts.js";
import { updatePost } from "../../handlers/update-post.js";
import type { Logger } from "../../lib/logger.js";
import type { PostRepository } from "../../lib/repository.js";

/** Every handler over `posts`, keyed by operation. */
export function handlersOver(posts: PostRepository, log?: Logger) {
  return {
    list: listPosts(posts, log),
    get: getPost(posts, log),
    create: createPost(posts, log),
    update: updatePost(posts, log),
    delete: deletePost(posts, log),
  };
}

export type Handlers = ReturnType<typeof handlersOver>;
