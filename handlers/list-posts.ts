// Lambda entry for GET /api/post: wired once per instance, at cold start.
import { readConfig } from "../lib/config.js";
import { listPosts } from "../lib/operations.js";
import { buildRuntime } from "../lib/runtime.js";

const { posts, logger } = buildRuntime(readConfig());

/** The function Lambda invokes. */
export const handler = listPosts(posts, logger);
