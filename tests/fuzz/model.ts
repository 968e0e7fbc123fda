// Fuzz oracle: an independent model of what the rulings ask, so a handler's answer to any
// generated request can be judged without reusing the code under test.
import { expect } from "vitest";
import { CONTENT_MAX_BYTES } from "../../lib/post.js";
import { POST_KEYS, STORED_TIMESTAMP, dayFirstUtc } from "../helpers/post-shape.js";
import * as arb from "./arbitraries.js";
import type { HostileRequest, Kind } from "./arbitraries.js";
import { INVALID_TIMESTAMPS, VALID_TIMESTAMPS } from "./corpora.js";

/** A stored item, as the table holds it. */
export type Item = Record<string, unknown>;
export const MAX_ID = Number.MAX_SAFE_INTEGER;
const BAD_PATH_ID = "Blog post id must be a positive integer";
/** The body size past which a 400 or 413 is fine: the rulings leave the exact limit open. */
const HUGE_BODY_BYTES = 1_048_576;

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

/** `YYYY-DD-MM HH:MM:SS` read as UTC; undefined unless it names a real moment. */
function serviceInstant(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
  if (!match) return undefined;
  const [year, day, month, hour, minute, second] = match.slice(1).map(Number) as number[];
  const date = new Date(0);
  date.setUTCFullYear(year!, month! - 1, day!);
  date.setUTCHours(hour!, minute!, second!, 0);
  const real =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month! - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second;
  return real ? date.getTime() : undefined;
}

/** The instant a client timestamp names (TZ=UTC), null for null, undefined if unknown. */
export function clientInstant(value: unknown): number | null | undefined {
  if (value === null) return null;
  if (typeof value !== "string") return undefined;
  const service = serviceInstant(value);
  if (service !== undefined) return service;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : parsed;
}

type Judgement = "valid" | "invalid" | "unsure";

function judgeTimestamp(value: unknown): Judgement {
  if (value === null) return "valid";
  if (typeof value !== "string") return "invalid";
  if (INVALID_TIMESTAMPS.includes(value)) return "invalid";
  const instant = clientInstant(value);
  // Years 0001-9998 only, so the shown year has four digits in every zone.
  const year =
    instant === null || instant === undefined ? undefined : new Date(instant).getUTCFullYear();
  if (year !== undefined && (year < 1 || year > 9998)) return "invalid";
  if (VALID_TIMESTAMPS.includes(value) || serviceInstant(value) !== undefined) return "valid";
  if (STORED_TIMESTAMP.test(value) && new Date(value).toISOString() === value) return "valid";
  return "unsure";
}

/** What a body should earn: the 4xx statuses it must get, or none; unsure where the rulings are silent. */
interface Verdict {
  rejections: Set<number>;
  unsure: boolean;
  payload?: Record<string, unknown>;
}

/** Canonical padded base64 (no nested groups: bodies run to megabytes). */
const isStrictBase64 = (text: string) =>
  text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text);

/** Judges a create or update body from the rulings, without using the service's own code. */
export function judgeBody(kind: "create" | "update", request: HostileRequest): Verdict {
  const verdict: Verdict = { rejections: new Set(), unsure: false };
  const reject = (status: number) => verdict.rejections.add(status);
  const raw = request.body ?? "";
  let text = raw;
  if (request.isBase64Encoded) {
    const compact = raw.replace(/\s/g, "");
    if (!isStrictBase64(compact)) verdict.unsure = true; // lenient or strict decoding: either is fine
    // A size limit may apply to the body as sent or as decoded.
    if (raw.length > HUGE_BODY_BYTES) verdict.unsure = true;
    const bytes = Buffer.from(raw, "base64");
    if (bytes.length > HUGE_BODY_BYTES) return { rejections: new Set([400, 413]), unsure: false };
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      reject(400);
      return verdict;
    }
  } else if (Buffer.byteLength(raw) > HUGE_BODY_BYTES) {
    return { rejections: new Set([400, 413]), unsure: false };
  }
  if (text.startsWith("\ufeff")) {
    // A byte order mark may be skipped or refused; judge the rest.
    verdict.unsure = true;
    text = text.slice(1);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    reject(400);
    return verdict;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    reject(400);
    return verdict;
  }
  const payload = value as Record<string, unknown>;
  verdict.payload = payload;
  const keys = Object.keys(payload);
  if (keys.some((key) => !POST_KEYS.includes(key))) reject(400);
  if (
    kind === "create" &&
    !(Object.hasOwn(payload, "title") && Object.hasOwn(payload, "content"))
  ) {
    reject(400);
  }
  for (const field of ["title", "content"]) {
    if (!Object.hasOwn(payload, field)) continue;
    const fieldValue = payload[field];
    if (typeof fieldValue !== "string") {
      reject(400);
      continue;
    }
    if (!fieldValue.isWellFormed()) verdict.unsure = true;
    if (field === "title" && arb.codePoints(fieldValue) > 100) reject(400);
    if (field === "content" && Buffer.byteLength(fieldValue) > CONTENT_MAX_BYTES) reject(413);
  }
  if (kind === "create") {
    if (Object.hasOwn(payload, "id")) {
      const id = payload.id;
      if (!(typeof id === "number" && Number.isSafeInteger(id) && id >= 1)) reject(400);
    }
    for (const field of ["created_at", "updated_at"]) {
      if (!Object.hasOwn(payload, field)) continue;
      const judgement = judgeTimestamp(payload[field]);
      if (judgement === "invalid") reject(400);
      if (judgement === "unsure") verdict.unsure = true;
    }
  }
  return verdict;
}

const isCanonicalId = (raw: string | undefined): raw is string =>
  raw !== undefined && /^[1-9][0-9]*$/.test(raw) && BigInt(raw) <= BigInt(MAX_ID);

interface Expected {
  statuses: number[];
  detail?: string;
}

function combine(verdict: Verdict, success: Expected): Expected {
  if (verdict.rejections.size > 0) {
    return { statuses: [...verdict.rejections, ...(verdict.unsure ? [400, 413] : [])] };
  }
  if (verdict.unsure) return { statuses: [400, 413, ...success.statuses] };
  return success;
}

/** The statuses (and detail, where the rulings fix it) a request must get. */
export function expectedOutcome(
  kind: Kind,
  request: HostileRequest,
  before: Map<number, Item>,
): Expected {
  const pathId = isCanonicalId(request.postId) ? Number(request.postId) : undefined;
  switch (kind) {
    case "list":
      return { statuses: [200] };
    case "get":
      if (pathId === undefined) return { statuses: [400], detail: BAD_PATH_ID };
      return before.has(pathId)
        ? { statuses: [200] }
        : { statuses: [404], detail: `Blog post #${pathId} not found` };
    case "delete":
      if (pathId === undefined) return { statuses: [400], detail: BAD_PATH_ID };
      return { statuses: [204], detail: `Blog post #${pathId} deleted` };
    case "create": {
      const verdict = judgeBody("create", request);
      const id = verdict.payload?.id;
      const taken = typeof id === "number" && before.has(id);
      return combine(
        verdict,
        taken
          ? { statuses: [409], detail: `Blog post #${id} already exists` }
          : { statuses: [201] },
      );
    }
    case "update": {
      const verdict = judgeBody("update", request);
      if (pathId === undefined) {
        const clean = verdict.rejections.size === 0 && !verdict.unsure;
        return clean
          ? { statuses: [400], detail: BAD_PATH_ID }
          : { statuses: [400, ...verdict.rejections] };
      }
      return combine(
        verdict,
        before.has(pathId)
          ? { statuses: [200] }
          : { statuses: [404], detail: `Blog post #${pathId} not found` },
      );
    }
  }
}
