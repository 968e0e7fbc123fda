// The spending limit's calendar: a month in UTC, as the ledger names it, when it ends, and a
// pause until then.

/** The month of `time` in UTC, as `YYYY-MM`: the ledger's key for it. */
export function monthOf(time: number): string {
  return new Date(time).toISOString().slice(0, 7);
}

/** The first instant of the month after `time`'s, in UTC: when a month's pause lifts. */
export function monthEnd(time: number): Date {
  const day = new Date(time);
  return new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + 1, 1));
}

/** Whole seconds from `time` to its month's end, at least 1: a Retry-After. */
export function secondsToMonthEnd(time: number): number {
  return Math.max(1, Math.ceil((monthEnd(time).getTime() - time) / 1000));
}

/** Why and until when the stage refuses requests. */
export interface Pause {
  limitUsd: number;
  month: string;
  resetsAt: Date;
  retryAfterSeconds: number;
}

/** A pause under `limitUsd` at `time`, until its month's end. */
export function pauseAt(limitUsd: number, time: number): Pause {
  return {
    limitUsd,
    month: monthOf(time),
    resetsAt: monthEnd(time),
    retryAfterSeconds: secondsToMonthEnd(time),
  };
}
