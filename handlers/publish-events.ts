// Lambda entry for the posts table's stream (an event source mapping): wired once per instance.
import { publishHandler, readPublishConfig } from "../lib/app/publishing.js";

/** The function Lambda invokes with a batch of the stream's records. */
export const handler = publishHandler(readPublishConfig());
