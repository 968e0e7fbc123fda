// The smoke's expectations: each returns what it checked or throws a Deviation that says, in one
// line, what the service answered instead.
import { ZonedClock } from "../zoned-time.mjs";

/**
 * @typedef {{ id: number, title: string, content: string, created_at: string | null, updated_at: string | null }} Post
 */

/** A rule the service broke. */
export class Deviation extends Error {}

export const POST_KEYS = ["content", "created_at", "id", "title", "updated_at"];
/** How far a new post's timestamps may be from this machine's clock (clock skew, slow answers). */
export const CLOCK_TOLERANCE_MS = 5 * 60_000;

/** @returns {never} */
export const fail = (/** @type {string} */ message) => {
  throw new Deviation(message);
};

/** A body, short, for a message. */
export const preview = (/** @type {unknown} */ body) => {
  const text = typeof body === "string" ? body : (JSON.stringify(body) ?? String(body));
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
};

/**
 * The service refused as it must: this status, and this `detail` in its body.
 * @param {import("../../../client/errors.mjs").ApiError} error
 */
export function refusal(
  error,
  /** @type {number} */ status,
  /** @type {string} */ detail,
  /** @type {string} */ what,
) {
  if (error.status !== status) {
    fail(`${what} answered ${error.status}, not ${status}: ${preview(error.body)}`);
  }
  const body = /** @type {{ detail?: unknown } | undefined} */ (error.body);
  if (body?.detail !== detail) {
    fail(`${what}: detail ${JSON.stringify(body?.detail)}, not ${JSON.stringify(detail)}`);
  }
}

/** @returns {Post} */
export function expectPost(/** @type {unknown} */ value, /** @type {string} */ what) {
  const keys =
    value && typeof value === "object" && !Array.isArray(value) ? Object.keys(value).sort() : [];
  if (keys.join() !== POST_KEYS.join()) {
    fail(`${what}: keys ${JSON.stringify(keys)}, not exactly ${POST_KEYS.join(", ")}`);
  }
  const post = /** @type {Post} */ (value);
  if (!Number.isSafeInteger(post.id) || post.id < 1) {
    fail(`${what}: id ${JSON.stringify(post.id)} is not a positive integer`);
  }
  return post;
}

/** Whether two posts have the same five values. */
export const samePost = (/** @type {Post} */ a, /** @type {Post} */ b) =>
  POST_KEYS.every(
    (key) => a[/** @type {keyof Post} */ (key)] === b[/** @type {keyof Post} */ (key)],
  );

/**
 * The instant a timestamp names in the service's zone, nearest to `near`; a Deviation naming the
 * rule when it is not `YYYY-DD-MM HH:MM:SS` or not near.
 * @param {string} zone the service's IANA time zone
 * @param {unknown} value
 * @param {string} name
 * @returns {number}
 */
export function instantOf(zone, value, name, near = Date.now()) {
  const clock = new ZonedClock(zone);
  const instants = typeof value === "string" ? clock.instantsOf(value) : undefined;
  if (!instants) {
    return fail(
      `${name} ${JSON.stringify(value)} is not YYYY-DD-MM HH:MM:SS (day before month, 24-hour)`,
    );
  }
  const nearest = instants.sort((a, b) => Math.abs(a - near) - Math.abs(b - near))[0];
  if (nearest === undefined || Math.abs(nearest - near) > CLOCK_TOLERANCE_MS) {
    fail(
      `${name} ${value} is not the time now in ${zone} (${clock.show(near)}): ` +
        `month before day, or another zone?`,
    );
  }
  return nearest;
}

/** The list's checks: an array, ascending by id, holding `post` as it is. */
export function listHolds(
  /** @type {unknown} */ list,
  /** @type {Post} */ post,
  /** @type {string} */ what,
) {
  if (!Array.isArray(list)) return fail(`${what}: not an array`);
  const ids = list.map((item) => item?.id);
  if (!ids.every((id, i) => i === 0 || id > ids[i - 1])) fail(`${what}: ids not ascending`);
  const found = list.find((item) => item?.id === post.id);
  if (!found) return fail(`${what}: post #${post.id} is missing`);
  if (!samePost(expectPost(found, what), post)) fail(`${what}: post #${post.id} differs`);
  return `200, ${list.length} posts ascending by id, #${post.id} among them`;
}
