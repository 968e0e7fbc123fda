// Local times of an IANA time zone: reading the service's `YYYY-DD-MM HH:MM:SS` (day before
// month) as the instant it names there, and showing an instant in that form.

const SERVICE_FORMAT = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** A zone's clock, reading and showing the service's timestamps. */
export class ZonedClock {
  /** @param {string} zone an IANA name such as `Europe/Paris`; throws RangeError when unknown */
  constructor(zone) {
    this.zone = zone;
    this.format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
  }

  /** The wall-clock fields of an instant in this zone, as if they were UTC (ms since the epoch). */
  wallClock(/** @type {number} */ instant) {
    /** @type {Record<string, number>} */
    const f = {};
    for (const part of this.format.formatToParts(instant)) {
      if (part.type !== "literal") f[part.type] = Number(part.value);
    }
    const wall = new Date(0);
    wall.setUTCFullYear(f.year ?? 0, (f.month ?? 1) - 1, f.day ?? 1);
    wall.setUTCHours(f.hour ?? 0, f.minute ?? 0, f.second ?? 0, 0);
    return wall.getTime();
  }

  /**
   * The instants a service timestamp names in this zone, earliest first: one normally, two in
   * the hour a fall-back repeats, none in the hour a spring-forward skips. Undefined when the
   * text is not a valid `YYYY-DD-MM HH:MM:SS`.
   * @param {string} text
   * @returns {number[] | undefined}
   */
  instantsOf(text) {
    const m = SERVICE_FORMAT.exec(text);
    if (!m) return undefined;
    const [year, day, month, hour, minute, second] = m.slice(1).map(Number);
    const wall = new Date(0);
    wall.setUTCFullYear(year ?? 0, (month ?? 1) - 1, day ?? 1);
    wall.setUTCHours(hour ?? 0, minute ?? 0, second ?? 0, 0);
    const w = wall.getTime();
    // A field out of range (31 April, hour 24) rolls over: such text names no time at all.
    if (showUtcFields(w) !== text) return undefined;
    // Every offset in force within a day of it; an instant matches when its wall clock is `w`.
    const offsets = new Set(
      [-36, -12, 0, 12, 36].map((hours) => {
        const t = w + hours * 3_600_000;
        return this.wallClock(t) - t;
      }),
    );
    const instants = [...offsets].map((offset) => w - offset);
    return [...new Set(instants)].filter((t) => this.wallClock(t) === w).sort((a, b) => a - b);
  }

  /** An instant shown as the service shows it in this zone: `YYYY-DD-MM HH:MM:SS`. */
  show(/** @type {number} */ instant) {
    return showUtcFields(this.wallClock(instant));
  }
}

const pad = (/** @type {number} */ n, width = 2) => String(n).padStart(width, "0");

/** UTC fields of `ms` in the service's day-before-month form. */
function showUtcFields(/** @type {number} */ ms) {
  const d = new Date(ms);
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCDate())}-${pad(d.getUTCMonth() + 1)} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  );
}

/**
 * An instant as ISO 8601 with this zone's offset (`2024-10-27T02:30:00+01:00`), so a file that
 * holds it means the same instant whatever zone reads it.
 */
export function isoWithOffset(/** @type {ZonedClock} */ clock, /** @type {number} */ instant) {
  const offsetMinutes = Math.round((clock.wallClock(instant) - instant) / 60_000);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  const wall = new Date(clock.wallClock(instant)).toISOString().slice(0, 19);
  return `${wall}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
