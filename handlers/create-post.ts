// Lambda entry for POST /api/post: wired once per instance, at init.
import { readConfig } from "../lib/app/config.js";
import { createPost } from "../lib/http/routes.js";
import { buildRuntime, warmUp } from "../lib/app/runtime.js";

const runtime = buildRuntime(readConfig());
// One small read at init: credentials, endpoint and connection ready before the first request.
await warmUp(runtime, (posts, signal) => posts.warmUp(signal));

/** The function Lambda invokes. */
export const handler = createPost(runtime.posts, runtime.logger, runtime.corsOrigins);
