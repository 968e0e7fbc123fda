// Lambda entry for POST /api/post: wired once per instance, at init.
import { readConfig } from "../lib/app/config.js";
import { preparedHandler } from "../lib/app/runtime.js";
import { createPost } from "../lib/http/routes.js";

/** The function Lambda invokes. */
export const handler = await preparedHandler(readConfig(), createPost);
