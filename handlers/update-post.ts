// Lambda entry for PUT /api/post/{post_pk}: wired once per instance, at cold start.
import { readConfig } from "../lib/app/config.js";
import { updatePost } from "../lib/http/routes.js";
import { buildRuntime } from "../lib/app/runtime.js";

const { posts, logger } = buildRuntime(readConfig());

/** The function Lambda invokes. */
export const handler = updatePost(posts, logger);
