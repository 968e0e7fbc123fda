// Lambda entry for GET /api/post/{post_pk}: wired once per instance, at cold start.
import { readConfig } from "../lib/app/config.js";
import { getPost } from "../lib/http/routes.js";
import { buildRuntime } from "../lib/app/runtime.js";

const { posts, logger } = buildRuntime(readConfig());

/** The function Lambda invokes. */
export const handler = getPost(posts, logger);
