// What the stage's guard does when the month's ledger item changes: the same thresholds the
// instances pause at (meter.ts), read from the item before and after one change, so each crossing
// is acted on once, by the change that made it.
import type { LedgerTotals } from "./meter.js";
import { WARNING_SHARE } from "./meter.js";
import { toNanoUsd } from "./pricing.js";

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
