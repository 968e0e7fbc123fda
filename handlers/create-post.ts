// Lambda entry for POST /api/post: wired once per instance, at cold start.
import { readConfig } from "../lib/app/config.js";
import { createPost } from "../lib/http/routes.js";
import { buildRuntime } from "../lib/app/runtime.js";

const { posts, logger } = buildRuntime(readConfig());

/** The function Lambda invokes. */
export const handler = createPost(posts, logger);
