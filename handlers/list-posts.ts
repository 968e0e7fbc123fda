// Lambda entry for GET /api/post: wired once per instance, at init.
import { readConfig } from "../lib/app/config.js";
import { listPosts, prepareList } from "../lib/http/routes.js";
import { buildRuntime, favourMemory, warmUp } from "../lib/app/runtime.js";

favourMemory();
const runtime = buildRuntime(readConfig());
// The first list's work at init: the whole list and its gzip kept in this instance, the list
// checked against the change marker like any kept list, so a write after init is still seen.
await warmUp(runtime, prepareList);

/** The function Lambda invokes. */
export const handler = listPosts(runtime.posts, runtime.logger, runtime.corsOrigins);
