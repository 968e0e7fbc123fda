// Lambda entry for DELETE /api/post/{post_pk}: wired once per instance, at init.
import { readConfig } from "../lib/app/config.js";
import { preparedHandler } from "../lib/app/runtime.js";
import { deletePost } from "../lib/http/routes.js";

/** The function Lambda invokes. */
export const handler = await preparedHandler(readConfig(), deletePost);
