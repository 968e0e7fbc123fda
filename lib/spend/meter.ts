// An instance's share of the spending limit: it prices what it serves, tells the stage's ledger
// once a window (one atomic ADD that answers with the month's total), and knows from that answer
// whether the stage is paused. It never fails a request: a ledger that does not answer leaves the
// instance counting on its own, and its unsent usage still counts towards the pause.
import { type Pause, monthOf, pauseAt } from "./calendar.js";
import { type Usage, addUsage, noUsage, toNanoUsd, usageUsd } from "./pricing.js";
import { type LedgerTotals, ceilingNanoOf, isPaused, stageActions } from "./thresholds.js";

export type { LedgerTotals } from "./thresholds.js";

/** Where every instance of a stage adds its usage: one item a month (lib/storage/spend-ledger.ts). */
export interface SpendLedger {
  read(month: string): Promise<LedgerTotals>;
  /** Adds atomically, noting the limit in force, and answers with the totals after the add. */
  add(month: string, usage: Usage, nanoUsd: number, limitNano: number): Promise<LedgerTotals>;
}

export type { Pause } from "./calendar.js";

/** A threshold one flush crossed: the warning share of the limit, or the pause. */
export interface Crossing {
  kind: "warning" | "paused";
  month: string;
  spentUsd: number;
  ceilingUsd: number;
  limitUsd: number;
}

export interface MeterOptions {
  limitUsd: number;
  ledger: SpendLedger;
  /** How often an instance that serves tells the ledger. */
  windowMs?: number;
  now?: () => number;
  /** Told once per threshold crossed, by the one flush whose add crossed it. */
  onCrossing: (crossing: Crossing) => void;
  /** Told when the ledger did not answer; the usage is kept for the next window. */
  onFailure: (error: unknown, during: "read" | "flush") => void;
}

export const SPEND_WINDOW_MS = 10_000;
/** The longest a request waits for the ledger before it is answered. */
export const ANSWER_WAIT_MS = 1_000;
/**
 * An instance tells the ledger early once its unsent usage passes this share of what the stage
 * had left when it last heard: near the limit, instances flush more often, so the overshoot shrinks
 * with the budget left rather than staying a whole window of traffic.
 */
export const EARLY_FLUSH_SHARE = 0.1;

export class SpendMeter {
  private readonly limitUsd: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  /** The month's totals at the last answer from the ledger, if any. */
  private known: (LedgerTotals & { month: string }) | undefined;
  private unsent: Usage = noUsage();
  private lastSync = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: MeterOptions) {
    this.limitUsd = options.limitUsd;
    this.windowMs = options.windowMs ?? SPEND_WINDOW_MS;
    this.now = options.now ?? Date.now;
  }

  /** Reads the month's totals, as an instance does before its first answer; never throws. */
  async start(): Promise<void> {
    const month = monthOf(this.now());
    try {
      const totals = await this.options.ledger.read(month);
      // A flush that answered while the read was slow knows more than the read does.
      if (this.known === undefined) this.learn(month, totals);
    } catch (error) {
      this.options.onFailure(error, "read");
    }
    // Only once it has heard (or failed to): a request before then asks the ledger itself.
    this.lastSync = Math.max(this.lastSync, this.now());
  }

  /**
   * The pause in force, if any. An instance whose knowledge is a window old tells the ledger first
   * (that window's one call), so a pause, a resume or a raised limit reaches it within one window,
   * even one that was idle since.
   */
  async pause(): Promise<Pause | undefined> {
    if (this.now() - this.lastSync >= this.windowMs) await this.within(this.flush());
    return this.pausedNow() ? pauseAt(this.limitUsd, this.now()) : undefined;
  }

  /**
   * `call`, waited for at most ANSWER_WAIT_MS: a slow ledger must not hold a request to the
   * function's timeout. The call goes on; the answer is given on what the instance knows.
   */
  private async within(call: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, ANSWER_WAIT_MS)));
    await Promise.race([call, waited]);
    clearTimeout(timer);
  }

  /** Counts what a request used. */
  record(usage: Partial<Usage>): void {
    addUsage(this.unsent, usage);
  }

  /** Tells the ledger if a window has passed, or early near the limit; never throws. */
  async settle(): Promise<void> {
    if (this.due()) await this.flush();
  }

  private due(): boolean {
    if (this.now() - this.lastSync >= this.windowMs) return true;
    // A paused instance keeps to the window: its refusals cost little, and a write each would not.
    if (isPaused(this.thisMonth(), this.limitUsd)) return false;
    const left = ceilingNanoOf(this.thisMonth(), this.limitUsd) - this.thisMonth().spentNano;
    // Stryker disable next-line EqualityOperator: a share of nano-dollars is never met exactly
    return this.unsentNano() >= left * EARLY_FLUSH_SHARE;
  }

  private async flush(): Promise<void> {
    const month = monthOf(this.now());
    const sending = this.unsent;
    const nano = this.unsentNano();
    this.unsent = noUsage();
    this.lastSync = this.now();
    try {
      const after = await this.options.ledger.add(month, sending, nano, toNanoUsd(this.limitUsd));
      this.tellCrossings(month, { ...after, spentNano: after.spentNano - nano }, after);
      this.learn(month, after);
    } catch (error) {
      addUsage(this.unsent, sending);
      this.options.onFailure(error, "flush");
    }
  }

  private learn(month: string, totals: LedgerTotals): void {
    this.known = { month, spentNano: totals.spentNano, ceilingNano: totals.ceilingNano };
  }

  private unsentNano(): number {
    return toNanoUsd(usageUsd(this.unsent));
  }

  /** The totals known for the month it is now: last month's say nothing of this one. */
  private thisMonth(): LedgerTotals {
    const known = this.known;
    return known?.month === monthOf(this.now()) ? known : { spentNano: 0 };
  }

  private pausedNow(): boolean {
    const totals = this.thisMonth();
    return isPaused({ ...totals, spentNano: totals.spentNano + this.unsentNano() }, this.limitUsd);
  }

  /** The threshold this add alone crossed, if any: the warning share, or the pause. */
  private tellCrossings(month: string, before: LedgerTotals, after: LedgerTotals): void {
    // A flush only adds: it may pause or warn, never resume.
    for (const action of stageActions(before, after, this.limitUsd)) {
      this.options.onCrossing({
        kind: action === "pause" ? "paused" : "warning",
        month,
        spentUsd: after.spentNano / 1e9,
        ceilingUsd: ceilingNanoOf(after, this.limitUsd) / 1e9,
        limitUsd: this.limitUsd,
      });
    }
  }
}
