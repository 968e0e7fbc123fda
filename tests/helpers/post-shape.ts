// Test helper: the post's shape as the specification states it, written once for every layer:
// its keys, the shown and stored timestamp patterns, and a day-before-month formatter that is
// independent of lib/posts/timestamps.ts, so it can serve as an oracle.

/** The keys of a serialized post (and of a stored one), sorted. */
export const POST_KEYS = ["content", "created_at", "id", "title", "updated_at"];
/** A timestamp as the API shows it: `YYYY-DD-MM HH:MM:SS`. */
export const SHOWN_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
/** A timestamp as the table stores it: ISO 8601 UTC with milliseconds. */
export const STORED_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const twoDigits = (n: number) => String(n).padStart(2, "0");

/** An instant in the service's format as read in UTC: year, then DAY, then MONTH, 24-hour clock. */
export function dayFirstUtc(date: Date): string {
  return (
    `${String(date.getUTCFullYear()).padStart(4, "0")}-${twoDigits(date.getUTCDate())}-` +
    `${twoDigits(date.getUTCMonth() + 1)} ${twoDigits(date.getUTCHours())}:` +
    `${twoDigits(date.getUTCMinutes())}:${twoDigits(date.getUTCSeconds())}`
  );
}
