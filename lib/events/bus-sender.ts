// The stage's EventBridge bus: each post event as one entry (asyncapi.yaml's eventBus channel:
// source `blog-post-api`, detail-type `Blog post changed`, the event as its detail), put with
// PutEvents, whose every request holds at most 10 entries and 256 KB of them.
import {
  type EventBridgeClient,
  PutEventsCommand,
  type PutEventsRequestEntry,
} from "@aws-sdk/client-eventbridge";
import type { PostEvent } from "./post-event.js";
import { type RequestSend, requestBatches, sendInOrder } from "./request-batches.js";

export const EVENT_SOURCE = "blog-post-api";
export const DETAIL_TYPE = "Blog post changed";

/** What one PutEvents request may hold. */
export const PUT_EVENTS_LIMITS = { maxEntries: 10, maxBytes: 256 * 1024 };

/** The bus and the client that puts on it. */
export interface BusTarget {
  client: EventBridgeClient;
  name: string;
}

/** How a sender reports what it could not hand on. */
export type FailureLog = (message: string, fields: Record<string, unknown>) => void;

const utf8Bytes = (text: string | undefined) => (text === undefined ? 0 : Buffer.byteLength(text));

/**
 * An entry's size as EventBridge counts it against a request's 256 KB: 14 bytes for a time, then
 * the source, detail-type, detail and resources in UTF-8 (the bus's name is not counted).
 */
export function entryBytes(entry: PutEventsRequestEntry): number {
  const resources = (entry.Resources ?? []).reduce((sum, arn) => sum + utf8Bytes(arn), 0);
  const text = utf8Bytes(entry.Source) + utf8Bytes(entry.DetailType) + utf8Bytes(entry.Detail);
  return (entry.Time ? 14 : 0) + text + resources;
}

/** One PutEvents request; answers the entries it refused (each with an ErrorCode). */
const putRequest =
  (bus: BusTarget, log: FailureLog): RequestSend<PutEventsRequestEntry> =>
  async (entries) => {
    const answer = await bus.client.send(new PutEventsCommand({ Entries: entries }));
    const results = answer.Entries ?? [];
    const refused = entries.flatMap((_, i) => (results[i]?.ErrorCode ? [i] : []));
    // A count of failures with no entry saying which: none of the request is taken as put.
    if (refused.length === 0 && (answer.FailedEntryCount ?? 0) > 0) refused.push(0);
    if (refused.length > 0) {
      const codes = refused.map((i) => results[i]?.ErrorCode ?? "unknown");
      log("post events not put on the bus", { failed: answer.FailedEntryCount, codes });
    }
    return refused;
  };

/**
 * Puts the events on the bus, in order; answers the stream index (`at`) of the first event not
 * put, or undefined when every one was.
 */
export function putOnBus(
  bus: BusTarget,
  events: { at: number; event: PostEvent }[],
  log: FailureLog,
): Promise<number | undefined> {
  const items = events.map(({ at, event }) => {
    const entry = {
      EventBusName: bus.name,
      Source: EVENT_SOURCE,
      DetailType: DETAIL_TYPE,
      Detail: JSON.stringify(event),
    };
    return { at, entry, bytes: entryBytes(entry) };
  });
  return sendInOrder(requestBatches(items, PUT_EVENTS_LIMITS), putRequest(bus, log), (error) =>
    log("PutEvents failed", { error: String(error) }),
  );
}
