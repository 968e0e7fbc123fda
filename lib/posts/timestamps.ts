// Time: how instants are stored, read from clients and shown (`YYYY-DD-MM HH:MM:SS`).

/** A stored instant: ISO 8601 in UTC with milliseconds, or null for an empty timestamp. */
export type StoredTimestamp = string | null;

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/** The current instant in the stored form. */
export function now(): string {
  return new Date().toISOString();
}

/**
 * Formats a stored instant as `YYYY-DD-MM HH:MM:SS` (day before month, 24-hour clock) in the
 * process's local time zone (`TZ`); null stays null.
 */
export function formatTimestamp(stored: StoredTimestamp): string | null {
  return stored === null ? null : showLocal(new Date(stored));
}

function showLocal(d: Date): string {
  return (
    `${pad(d.getFullYear(), 4)}-${pad(d.getDate())}-${pad(d.getMonth() + 1)} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  );
}

const SERVICE_FORMAT = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const ISO_WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):(\d{2}))$/;

/** Reads `YYYY-DD-MM HH:MM:SS` as local time; undefined when it names no real local moment. */
function parseServiceFormat(text: string): Date | undefined {
  const m = SERVICE_FORMAT.exec(text);
  if (!m) return undefined;
  const [year, day, month, hour, minute, second] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const d = new Date(year, month - 1, day, hour, minute, second);
  d.setFullYear(year); // years 0-99 would otherwise be read as 1900-1999
  // A field out of range (31 April, 24:00, a local time daylight saving skips) rolls over into
  // another moment, which no longer shows as the text it was read from.
  return showLocal(d) === text ? d : undefined;
}

/** Reads an ISO 8601 date-time with `Z` or an offset; undefined when a field is out of range. */
function parseIsoWithOffset(text: string): Date | undefined {
  const m = ISO_WITH_OFFSET.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour] = m.slice(1, 5).map(Number) as [number, number, number, number];
  // Date itself refuses month 0 or 13, day 0, minute or second 60 and an offset past 23:59, but
  // reads 30 February as 2 March and hour 24 as the next day's midnight: those two are refused here.
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth || hour > 23) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * Reads a client-sent timestamp: null, `YYYY-DD-MM HH:MM:SS` (server local time) or ISO 8601
 * with an offset. Returns the stored form, or undefined when the value is none of those.
 */
export function parseClientTimestamp(value: unknown): StoredTimestamp | undefined {
  if (value === null) return null;
  if (typeof value !== "string") return undefined;
  const date = parseServiceFormat(value) ?? parseIsoWithOffset(value);
  if (!date) return undefined;
  const year = date.getUTCFullYear();
  // Kept a year inside 0000-9999, so that shown in any zone it still has four digits.
  return year >= 1 && year <= 9998 ? date.toISOString() : undefined;
}
