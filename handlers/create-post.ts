// Lambda entry for POST /api/post: wired once per instance, at cold start.
import { readConfig } from "../lib/config.js";
import { createPost } from "../lib/operations.js";
import { buildRuntime } from "../lib/runtime.js";

const { posts, logger } = buildRuntime(readConfig());

/** The function Lambda invokes. */
export const handler = createPost(posts, logger);
