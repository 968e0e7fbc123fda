// Post events: a change record of the posts table's stream turned into the event subscribers
// receive, the same on AWS (the stream function and the delivery function) and locally.
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import { type Post, serializePost } from "../posts/post.js";

/** The three kinds of change a post has. */
export type PostEventType = "post.created" | "post.updated" | "post.deleted";

type Image = Record<string, AttributeValue>;

/** A record of the table's stream as Lambda and (converted) DynamoDB Local give it. */
export interface ChangeRecord {
  eventName?: "INSERT" | "MODIFY" | "REMOVE" | string;
  dynamodb?: {
    /** Seconds since the epoch, when the change was made. */
    ApproximateCreationDateTime?: number;
    Keys?: Image;
    NewImage?: Image;
    OldImage?: Image;
  };
}

/** An event as delivered: on the bus as its detail, to a webhook as its body. */
export interface PostEvent {
  type: PostEventType;
  /** When the change was made, ISO 8601 in UTC. */
  timestamp: string;
  /** The post's version after this change: grows with every change of this id. */
  version: number;
  /** The post as the API serializes it; `{ id }` for a delete; no `content` in the thin form. */
  data: Record<string, unknown> & { id: number };
  /** Only in the thin form: which fields were left out and where to read them. */
  omitted?: string[];
  note?: string;
}

/**
 * Largest event, in UTF-8 bytes of its JSON, sent whole. An EventBridge entry holds 256 KB with
 * its envelope, and `content` alone may take 300,000 bytes before JSON escapes it, so a larger
 * event goes in its thin form, on the bus and to webhooks alike.
 */
export const FULL_EVENT_MAX_BYTES = 200_000;

const TYPES: Record<string, PostEventType> = {
  INSERT: "post.created",
  MODIFY: "post.updated",
  REMOVE: "post.deleted",
};

/** The post id a record is about: posts have positive ids; the counter and the marker do not. */
export function postIdOf(record: ChangeRecord): number | undefined {
  const id = Number(record.dynamodb?.Keys?.id?.N);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/** An id for the event that stays the same however often it is delivered. */
export const eventIdOf = (event: PostEvent) => `msg_post${event.data.id}v${event.version}`;

/** The event a change record makes, or undefined for a storage item (counter, marker shards). */
export function eventFromRecord(record: ChangeRecord): PostEvent | undefined {
  const id = postIdOf(record);
  const type = TYPES[record.eventName ?? ""];
  if (id === undefined || !type) return undefined;
  const seconds = record.dynamodb?.ApproximateCreationDateTime ?? Date.now() / 1000;
  const timestamp = new Date(Math.floor(seconds) * 1000).toISOString();
  if (type === "post.deleted") {
    const old = unmarshall(record.dynamodb?.OldImage ?? {});
    // The delete is one more write of the post: one above its last version.
    return { type, timestamp, version: Number(old.version ?? 0) + 1, data: { id } };
  }
  const item = unmarshall(record.dynamodb?.NewImage ?? {});
  const event: PostEvent = {
    type,
    timestamp,
    version: Number(item.version ?? 0),
    data: { ...serializePost(item as Post) },
  };
  return fitted(event);
}

/**
 * The event itself when it fits, else its thin form: id, version, title and timestamps, with a
 * note to read the post (which by then may have changed again: the version says whether).
 */
export function fitted(event: PostEvent): PostEvent {
  if (Buffer.byteLength(JSON.stringify(event)) <= FULL_EVENT_MAX_BYTES) return event;
  const { content: _content, ...thin } = event.data;
  return {
    ...event,
    data: thin as PostEvent["data"],
    omitted: ["content"],
    note: `Too large to send whole: read GET /api/post/${event.data.id}`,
  };
}
