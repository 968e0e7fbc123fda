// Lambda entry for GET /api/post/{post_pk}: wired once per instance, at init, its first get's
// work done then.
import { readConfig } from "../lib/app/config.js";
import { preparedGetHandler } from "../lib/app/runtime.js";

/** The function Lambda invokes. */
export const handler = await preparedGetHandler(readConfig());
