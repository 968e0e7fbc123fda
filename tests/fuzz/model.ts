// Fuzz oracle: an independent model of the rulings and docs/api.md that judges any generated
// request without the code under test; when several rules break, any of their statuses passes.
import { expect } from "vitest";
import { CONTENT_MAX_BYTES } from "../../lib/posts/post.js";
import { POST_KEYS, STORED_TIMESTAMP, dayFirstUtc } from "../helpers/post-shape.js";
import type { HostileRequest, Kind } from "./arbitraries.js";
import { VALID_TIMESTAMPS } from "./corpora.js";
import { codePoints } from "./fields.js";

export type Item = Record<string, unknown>;
export const MAX_ID = Number.MAX_SAFE_INTEGER;
const BODY_MAX_BYTES = 1_048_576;

/** A stored instant as the API must show it with TZ=UTC: `YYYY-DD-MM HH:MM:SS`. */
function shownTimestamp(stored: unknown): string | null {
  if (stored === null) return null;
  expect(
    (typeof stored === "string" && STORED_TIMESTAMP.test(stored)) || Number.isSafeInteger(stored),
    `stored timestamp ${JSON.stringify(stored)} is ISO 8601 UTC with milliseconds or epoch ms`,
  ).toBe(true);
  return dayFirstUtc(new Date(stored as string | number));
}

/** A stored post as the API must show it. */
export function shown(item: Item) {
  return {
    id: item.id,
    title: item.title,
    content: item.content,
    created_at: shownTimestamp(item.created_at),
    updated_at: shownTimestamp(item.updated_at),
  };
}

export const instantOf = (stored: unknown): number | null =>
  stored === null ? null : new Date(stored as string | number).getTime();

/** The instant a sent timestamp names (TZ=UTC), undefined when refused: the corpus's and the
 * service's own two shapes only (the unit tests pin the parsing rules). */
export function clientInstant(value: unknown): number | null | undefined {
  if (value === null) return null;
  if (typeof value !== "string") return undefined;
  if (Object.hasOwn(VALID_TIMESTAMPS, value)) return Date.parse(VALID_TIMESTAMPS[value]!);
  const [, year, day, month, time] = /^(\d{4})-(\d{2})-(\d{2}) (\d\d:\d\d:\d\d)$/.exec(value) ?? [];
  const instant = Date.parse(year ? `${year}-${month}-${day}T${time}.000Z` : value);
  if (Number.isNaN(instant)) return undefined;
  const date = new Date(instant);
  const exact = (year ? dayFirstUtc(date) : date.toISOString()) === value;
  const shownYear = date.getUTCFullYear();
  return exact && shownYear >= 1 && shownYear <= 9998 ? instant : undefined;
}

interface Verdict {
  rejections: Set<number>;
  payload?: Record<string, unknown>;
}

const rejected = (status: number): Verdict => ({ rejections: new Set([status]) });

/** The body as text: base64 decoded as Buffer does, to UTF-8; one leading BOM ignored. */
function bodyText(request: HostileRequest): string | Verdict {
  const raw = request.body ?? "";
  const size = request.isBase64Encoded ? Math.floor((raw.length * 3) / 4) : Buffer.byteLength(raw);
  if (size > BODY_MAX_BYTES) return rejected(413);
  let text = raw;
  if (request.isBase64Encoded) {
    try {
      const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
      text = decoder.decode(Buffer.from(raw, "base64"));
    } catch {
      return rejected(400);
    }
  }
  return text.startsWith("\ufeff") ? text.slice(1) : text;
}

export function judgeBody(kind: "create" | "update", request: HostileRequest): Verdict {
  const text = bodyText(request);
  if (typeof text !== "string") return text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return rejected(400);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return rejected(400);
  const payload = value as Record<string, unknown>;
  const verdict: Verdict = { rejections: new Set(), payload };
  const reject = (status: number) => verdict.rejections.add(status);
  if (Object.keys(payload).some((key) => !POST_KEYS.includes(key))) reject(400);
  if (kind === "create" && !(Object.hasOwn(payload, "title") && Object.hasOwn(payload, "content")))
    reject(400);
  for (const field of ["title", "content"]) {
    if (!Object.hasOwn(payload, field)) continue;
    const fieldValue = payload[field];
    // Lone surrogates are refused: DynamoDB stores UTF-8 and would replace them.
    if (typeof fieldValue !== "string" || !fieldValue.isWellFormed()) reject(400);
    else if (field === "title" && codePoints(fieldValue) > 100) reject(400);
    else if (field === "content" && Buffer.byteLength(fieldValue) > CONTENT_MAX_BYTES) reject(413);
  }
  if (kind === "create") {
    const id = payload.id;
    if (Object.hasOwn(payload, "id") && !(Number.isSafeInteger(id) && (id as number) >= 1)) {
      reject(400);
    }
    for (const field of ["created_at", "updated_at"]) {
      if (Object.hasOwn(payload, field) && clientInstant(payload[field]) === undefined) reject(400);
    }
  }
  return verdict;
}

const isCanonicalId = (raw: string | undefined): raw is string =>
  raw !== undefined && /^[1-9][0-9]*$/.test(raw) && BigInt(raw) <= BigInt(MAX_ID);

/** JSON with object keys sorted at every level. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );

export interface KeyOutcome {
  payload: string;
  status: number;
  body: unknown;
}

export interface Expected {
  statuses: number[];
  /** An Idempotency-Key seen before with the same body: this exact answer, and no write. */
  replay?: KeyOutcome;
  /** A fresh Idempotency-Key: its answer is what later requests with it must replay. */
  remember?: { key: string; payload: string };
}

export function expectedOutcome(
  kind: Kind,
  request: HostileRequest,
  before: Map<number, Item>,
  keys: ReadonlyMap<string, KeyOutcome>,
): Expected {
  const pathId = isCanonicalId(request.postId) ? Number(request.postId) : undefined;
  const found = { statuses: [pathId !== undefined && before.has(pathId) ? 200 : 404] };
  if (kind === "list") return { statuses: [200] };
  if (kind === "create") {
    const verdict = judgeBody("create", request);
    if (verdict.rejections.size > 0) return { statuses: [...verdict.rejections] };
    const payload = canonical(verdict.payload!);
    const id = verdict.payload!.id;
    const outcome = { statuses: [typeof id === "number" && before.has(id) ? 409 : 201] };
    // The key is read only once the body is valid.
    const key = Object.entries(request.headers).find(
      ([name]) => name.toLowerCase() === "idempotency-key",
    )?.[1];
    if (key === undefined) return outcome;
    if (!/^[\x21-\x7e]{1,255}$/.test(key)) return { statuses: [400] };
    const first = keys.get(key);
    if (!first) return { ...outcome, remember: { key, payload } };
    if (first.payload !== payload) return { statuses: [422] };
    return { statuses: [first.status], replay: first };
  }
  // The path id is checked before the body.
  if (pathId === undefined) return { statuses: [400] };
  if (kind === "get") return found;
  if (kind === "delete") return { statuses: [204] };
  const verdict = judgeBody("update", request);
  return verdict.rejections.size > 0 ? { statuses: [...verdict.rejections] } : found;
}
