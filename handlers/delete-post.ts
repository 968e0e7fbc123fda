// Lambda entry for DELETE /api/post/{post_pk}: wired once per instance, at cold start.
import { readConfig } from "../lib/config.js";
import { deletePost } from "../lib/operations.js";
import { buildRuntime } from "../lib/runtime.js";

const { posts, logger } = buildRuntime(readConfig());

/** The function Lambda invokes. */
export const handler = deletePost(posts, logger);
