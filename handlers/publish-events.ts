// Lambda entry for the stream → bus Pipe's enrichment: the table's change records in, events out.
import { streamToEvents } from "../lib/app/webhooks.js";

/** The function the Pipe invokes with a batch of records; it answers their events. */
export const handler = async (records: Parameters<typeof streamToEvents>[0]) =>
  streamToEvents(records);
