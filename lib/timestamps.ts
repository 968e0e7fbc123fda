// Post rules, time: how instants are stored, read from clients and shown (`YYYY-DD-MM HH:MM:SS`).

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
  if (stored === null) return null;
  const d = new Date(stored);
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
  const roundTrips =
    d.getFullYear() === year &&
    d.getMonth() === month - 1 &&
    d.getDate() === day &&
    d.getHours() === hour &&
    d.getMinutes() === minute &&
    d.getSeconds() === second;
  return roundTrips ? d : undefined;
}

/** Reads an ISO 8601 date-time with `Z` or an offset; undefined when a field is out of range. */
function parseIsoWithOffset(text: string): Date | undefined {
  const m = ISO_WITH_OFFSET.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s = "0", , zone, oh = "0", om = "0"] = m;
  const month = Number(mo);
  const day = Number(d);
  const daysInMonth = new Date(Date.UTC(Number(y), month, 0)).getUTCDate();
  const valid =
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    Number(h) <= 23 &&
    Number(mi) <= 59 &&
    Number(s) <= 59 &&
    (zone === "Z" || (Number(oh) <= 23 && Number(om) <= 59));
  if (!valid) return undefined;
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
