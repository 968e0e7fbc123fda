// Lambda entry for GET /api/post: wired once per instance, at init, its first list prepared then.
import { readConfig } from "../lib/app/config.js";
import { favourMemory } from "../lib/app/heap.js";
import { buildRuntime, preparedListHandler } from "../lib/app/runtime.js";

favourMemory();

/** The function Lambda invokes. */
export const handler = await preparedListHandler(buildRuntime(readConfig()));
