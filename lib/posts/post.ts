// The post's shape, what create and update accept, and how a post is serialized.
import { ValidationError, TooLargeError } from "./errors.js";
import { formatTimestamp, now, parseClientTimestamp, type StoredTimestamp } from "./timestamps.js";

/** A post as stored in the table. */
export interface Post {
  id: number;
  title: string;
  content: string;
  created_at: StoredTimestamp;
  updated_at: StoredTimestamp;
}

/** A post as the API shows it: exactly these five keys. */
interface SerializedPost {
  id: number;
  title: string;
  content: string;
  created_at: string | null;
  updated_at: string | null;
}

/** What create stores: `id` and the timestamps only when the client sent them. */
export interface NewPost {
  id?: number;
  title: string;
  content: string;
  created_at?: StoredTimestamp;
  updated_at?: StoredTimestamp;
}

/** What update may change; absent keys keep their stored values. */
export interface PostChanges {
  title?: string;
  content?: string;
}

const TITLE_MAX_CHARACTERS = 100;
/** Keeps a post well inside DynamoDB's 400 KB item limit. */
export const CONTENT_MAX_BYTES = 300_000;

const KNOWN_FIELDS = new Set(["id", "title", "content", "created_at", "updated_at"]);
const CANONICAL_ID = /^[1-9][0-9]{0,15}$/;

/** Reads `post_pk` from the path: a canonical positive decimal integer within 2^53 - 1. */
export function parsePostId(raw: string | undefined): number {
  // A missing id reads as "undefined", which is no id.
  const id = CANONICAL_ID.test(String(raw)) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id)) {
    throw new ValidationError("Blog post id must be a positive integer");
  }
  return id;
}

/** Serializes a stored post for a response. */
export function serializePost(post: Post): SerializedPost {
  return {
    id: post.id,
    title: post.title,
    content: post.content,
    created_at: formatTimestamp(post.created_at),
    updated_at: formatTimestamp(post.updated_at),
  };
}

/** The post a create stores under `id`: client-sent timestamps kept, missing ones set to now. */
export function postToStore(input: NewPost, id: number): Post {
  const timestamp = now();
  return {
    id,
    title: input.title,
    content: input.content,
    created_at: input.created_at !== undefined ? input.created_at : timestamp,
    updated_at: input.updated_at !== undefined ? input.updated_at : timestamp,
  };
}

const sortedList = (names: Iterable<string>): string => [...names].sort().join(", ");

function rejectUnknownFields(payload: Record<string, unknown>): void {
  const unknown = Object.keys(payload).filter((key) => !KNOWN_FIELDS.has(key));
  if (unknown.length > 0) throw new ValidationError(`Unknown fields: ${sortedList(unknown)}`);
}

function checkTitle(value: unknown): string {
  if (typeof value !== "string") throw new ValidationError("title must be a string");
  if (!value.isWellFormed()) throw new ValidationError("title must be valid Unicode text");
  // Counted in code points, so an emoji is one character as a reader sees it.
  let length = 0;
  for (const _ of value) if (++length > TITLE_MAX_CHARACTERS) break;
  if (length > TITLE_MAX_CHARACTERS) {
    throw new ValidationError(`title must be at most ${TITLE_MAX_CHARACTERS} characters`);
  }
  return value;
}

function checkContent(value: unknown): string {
  if (typeof value !== "string") throw new ValidationError("content must be a string");
  if (!value.isWellFormed()) throw new ValidationError("content must be valid Unicode text");
  if (Buffer.byteLength(value) > CONTENT_MAX_BYTES) {
    throw new TooLargeError(`content must be at most ${CONTENT_MAX_BYTES} bytes (UTF-8)`);
  }
  return value;
}

function checkId(value: unknown): number {
  // isSafeInteger is false for anything that is not a number.
  if (!Number.isSafeInteger(value) || (value as number) < 1) {
    throw new ValidationError("id must be a positive integer no greater than 9007199254740991");
  }
  return value as number;
}

function checkTimestamp(field: string, value: unknown): StoredTimestamp {
  const stored = parseClientTimestamp(value);
  if (stored === undefined) {
    throw new ValidationError(
      `${field} must be null, "YYYY-DD-MM HH:MM:SS" or an ISO 8601 date-time with an offset, ` +
        "naming an instant in the years 0001 to 9998 (UTC)",
    );
  }
  return stored;
}

/** Validates a create payload; keeps client-sent `id`, `created_at` and `updated_at`. */
export function validateCreate(payload: Record<string, unknown>): NewPost {
  rejectUnknownFields(payload);
  const missing = ["title", "content"].filter((key) => !Object.hasOwn(payload, key));
  if (missing.length > 0) {
    throw new ValidationError(`Missing required fields: ${sortedList(missing)}`);
  }
  const post: NewPost = {
    title: checkTitle(payload.title),
    content: checkContent(payload.content),
  };
  if (Object.hasOwn(payload, "id")) post.id = checkId(payload.id);
  for (const field of ["created_at", "updated_at"] as const) {
    if (Object.hasOwn(payload, field)) post[field] = checkTimestamp(field, payload[field]);
  }
  return post;
}

/** Validates an update payload; `id` and the timestamps are known but read-only, so dropped. */
export function validateUpdate(payload: Record<string, unknown>): PostChanges {
  rejectUnknownFields(payload);
  const changes: PostChanges = {};
  if (Object.hasOwn(payload, "title")) changes.title = checkTitle(payload.title);
  if (Object.hasOwn(payload, "content")) changes.content = checkContent(payload.content);
  return changes;
}
