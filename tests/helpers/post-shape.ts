// Test helper: the post's shape as the specification states it, for every layer: its keys, the
// timestamp patterns, and a day-first formatter independent of lib/ (an oracle).

/** The keys of a serialized post (and of a stored one), sorted. */
export const POST_KEYS = ["content", "created_at", "id", "title", "updated_at"];
/** A timestamp as the API shows it: `YYYY-DD-MM HH:MM:SS`. */
export const SHOWN_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
/** A timestamp as the table stores it: ISO 8601 UTC with milliseconds. */
export const STORED_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** An instant in the service's format as read in UTC: year, then DAY, then MONTH, 24-hour clock. */
export function dayFirstUtc(date: Date): string {
  const day = [pad(date.getUTCFullYear(), 4), pad(date.getUTCDate()), pad(date.getUTCMonth() + 1)];
  const time = [date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()].map((n) => pad(n));
  return `${day.join("-")} ${time.join(":")}`;
}
