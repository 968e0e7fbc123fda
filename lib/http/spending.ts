// The spending limit at the HTTP edge (docs/operating.md, Spending limit): a paused stage's answer,
// given before a route does anything, and what each request served is told to the meter.
import type { Pause } from "../spend/meter.js";

/** What a request used, as the pipeline saw it. */
export interface Served {
  /** Bytes of the body as sent: gzipped when the answer was. */
  bytesOut: number;
  readUnits: number;
  writeUnits: number;
  durationMs: number;
}

/** The stage's spending limit as the pipeline uses it (lib/app/spending.ts over lib/spend/). */
export interface SpendGuard {
  /** The pause in force, if any. */
  pause(): Promise<Pause | undefined>;
  /** Counts a request once it is answered; may tell the ledger; never throws. */
  served(request: Served): Promise<void>;
}

/** Dollars as people write them: cents shown, more digits only when the limit has them. */
const dollars = (usd: number) => `$${Number.isInteger(usd * 100) ? usd.toFixed(2) : String(usd)}`;

/**
 * 503 with a `detail` naming the limit and when it lifts, and a Retry-After until then: a client
 * that honours it comes back when the month turns, and the typed client gives up at once.
 */
export function pausedReply(pause: Pause) {
  const until = pause.resetsAt.toISOString().replace("T", " ").slice(0, 16);
  return {
    statusCode: 503,
    body: {
      detail:
        `This stage has reached its spending limit of ${dollars(pause.limitUsd)} for ` +
        `${pause.month} (UTC) and is paused until ${until} UTC, or until its owner resumes it`,
    },
    headers: { "retry-after": String(pause.retryAfterSeconds) },
  };
}
