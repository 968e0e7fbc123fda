// The spending limit's thresholds, for the instances that pause (meter.ts) and the stage's guard
// that throttles (lib/app/stage-guard.ts) alike: a month's ceiling, whether it is reached, and
// what one change of the month's totals crossed, so each crossing is acted on once, by the change
// that made it.
import { toNanoUsd } from "./pricing.js";

/** The month's totals as the ledger holds them, in nano-dollars. */
export interface LedgerTotals {
  spentNano: number;
  /** A ceiling `npm run resume` lifted this month to; the limit applies when absent or lower. */
  ceilingNano?: number | undefined;
}

/** The share of the limit at which a warning is sent, before the pause. */
export const WARNING_SHARE = 0.8;

/** What a change of the ledger asks of the stage. */
export type StageAction = "warn" | "pause" | "resume";

/** The month's ceiling: the limit, or a higher one a resume lifted it to. */
export const ceilingNanoOf = (totals: LedgerTotals, limitUsd: number) =>
  Math.max(toNanoUsd(limitUsd), totals.ceilingNano ?? 0);

/** Whether a month with `totals` is paused under `limitUsd`. */
export const isPaused = (totals: LedgerTotals, limitUsd: number) =>
  totals.spentNano >= ceilingNanoOf(totals, limitUsd);

/** The actions one change of a month's totals, from `before` to `after`, calls for. */
export function stageActions(
  before: LedgerTotals,
  after: LedgerTotals,
  limitUsd: number,
): StageAction[] {
  const was = isPaused(before, limitUsd);
  const is = isPaused(after, limitUsd);
  if (!was && is) return ["pause"];
  if (was && !is) return ["resume"];
  const warnAt = ceilingNanoOf(after, limitUsd) - (1 - WARNING_SHARE) * toNanoUsd(limitUsd);
  return !is && before.spentNano < warnAt && after.spentNano >= warnAt ? ["warn"] : [];
}
