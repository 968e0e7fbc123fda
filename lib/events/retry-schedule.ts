// When a refused delivery is tried again: Standard Webhooks' example schedule, stretched past a
// day, the same locally and on AWS (where it sets the queue message's visibility, and
// config/events.cjs dead-letters a message after DELIVERY_ATTEMPTS receives). config/ requires
// this file and Node strips its types without rewriting import paths, so it keeps to erasable
// syntax and imports nothing.

/** Pause before each retry, in ms: the first within 10 s, the last about 27 h after the first try. */
export const RETRY_DELAYS_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
] as const;

/** Tries in all, the first included, before an event is dead-lettered. */
export const DELIVERY_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** The pause after the `attempt`-th failed try (1-based), or undefined when none are left. */
export function retryDelayMs(attempt: number): number | undefined {
  return RETRY_DELAYS_MS[attempt - 1];
}
