// Local times of an IANA time zone (Luxon): reading the service's `YYYY-DD-MM HH:MM:SS` (day
// before month) as the instant it names there, and showing an instant in that form.
import { DateTime, Info } from "luxon";

const SERVICE_FORMAT = "yyyy-dd-MM HH:mm:ss";

/** A zone's clock, reading and showing the service's timestamps. */
export class ZonedClock {
  /** @param {string} zone an IANA name such as `Europe/Paris`; throws RangeError when unknown */
  constructor(zone) {
    if (!Info.isValidIANAZone(zone)) throw new RangeError(`Unknown time zone ${zone}`);
    this.zone = zone;
  }

  /**
   * The instants a `YYYY-DD-MM HH:MM:SS` names in this zone, earliest first: one, two in the hour
   * a fall-back repeats, none in the hour a spring-forward skips; undefined when it is not valid.
   * @param {string} text
   * @returns {number[] | undefined}
   */
  instantsOf(text) {
    // Out-of-range fields (31 April, hour 24) name no time at all: read in UTC, they roll over.
    const read = (/** @type {string} */ zone) =>
      DateTime.fromFormat(text, SERVICE_FORMAT, { zone });
    if (read("utc").toFormat(SERVICE_FORMAT) !== text) return undefined;
    // A skipped local time is moved past the gap, so no offset shows it as written.
    return read(this.zone)
      .getPossibleOffsets()
      .filter((time) => time.toFormat(SERVICE_FORMAT) === text)
      .map((time) => time.toMillis())
      .sort((a, b) => a - b);
  }

  /** An instant shown as the service shows it in this zone: `YYYY-DD-MM HH:MM:SS`. */
  show(/** @type {number} */ instant) {
    return DateTime.fromMillis(instant, { zone: this.zone }).toFormat(SERVICE_FORMAT);
  }
}

/**
 * An instant as ISO 8601 with this zone's offset (`2024-10-27T02:30:00+01:00`), so a file that
 * holds it means the same instant whatever zone reads it.
 */
export const isoWithOffset = (/** @type {ZonedClock} */ clock, /** @type {number} */ instant) =>
  DateTime.fromMillis(instant, { zone: clock.zone }).toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
