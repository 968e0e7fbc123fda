// Unit: the spending limit's pricing, calendar and meter (lib/spend), and the guard an instance
// wires from them (lib/app/spending.ts), over a ledger in memory and a clock the test moves.
import { describe, expect, it, vi } from "vitest";
import prices from "../../../config/prices.json" with { type: "json" };
import { spendGuard } from "../../../lib/app/spending.js";
import { monthEnd, monthOf, secondsToMonthEnd } from "../../../lib/spend/calendar.js";
import {
  type Crossing,
  ANSWER_WAIT_MS,
  type LedgerTotals,
  SPEND_WINDOW_MS,
  SpendMeter,
  type SpendLedger,
} from "../../../lib/spend/meter.js";
import { type Usage, noUsage, toNanoUsd, usageUsd } from "../../../lib/spend/pricing.js";
import { recordingLogger } from "../../helpers/handlers.js";

/** A ledger in memory, as DynamoDB's ADD keeps it; `failing` makes it throw. */
class MemoryLedger implements SpendLedger {
  months = new Map<string, LedgerTotals>();
  calls = 0;
  failing = false;
  async read(month: string) {
    this.calls += 1;
    if (this.failing) throw new Error("ledger down");
    return this.months.get(month) ?? { spentNano: 0 };
  }
  async add(month: string, _usage: Usage, nano: number) {
    this.calls += 1;
    if (this.failing) throw new Error("ledger down");
    const totals = this.months.get(month) ?? { spentNano: 0 };
    const after = { ...totals, spentNano: totals.spentNano + nano };
    this.months.set(month, after);
    return after;
  }
}

const NOV = Date.UTC(2026, 10, 28, 12);
const MB = 2 ** 20;
/** What `count` one-megabyte answers cost, in nano-dollars. */
const nanoFor = (count: number) =>
  toNanoUsd(usageUsd({ ...noUsage(), requests: count, bytesOut: count * MB }));

/** A meter over `ledger` (a new one unless given), on a clock from `start` that `tick` moves. */
function meterOn(limitUsd: number, { ledger = new MemoryLedger(), start = NOV } = {}) {
  let clock = start;
  const crossings: Crossing[] = [];
  const failures: string[] = [];
  const meter = new SpendMeter({
    limitUsd,
    ledger,
    now: () => clock,
    onCrossing: (c) => crossings.push(c),
    onFailure: (_, during) => failures.push(during),
  });
  const tick = (ms: number) => (clock += ms);
  return { ledger, meter, crossings, failures, tick };
}
/** A meter that has read its ledger, as an instance has before its first answer. */
async function started(limitUsd: number) {
  const on = meterOn(limitUsd);
  await on.meter.start();
  return on;
}

/** Serves `count` one-megabyte answers, settling after each as the pipeline does. */
async function serve(meter: SpendMeter, count: number) {
  for (let i = 0; i < count; i += 1) {
    meter.record({ requests: 1, bytesOut: MB });
    await meter.settle();
  }
}

describe("pricing", () => {
  it("prices each count from config/prices.json, from the first unit", () => {
    const each = (name: keyof typeof prices.prices) =>
      prices.prices[name].usd / prices.prices[name].per;
    const usage = { requests: 2, bytesOut: 2 ** 30, readUnits: 4, writeUnits: 3, gbMs: 5000 };
    const expected =
      2 * (each("apiGatewayRestRequests") + each("lambdaRequests")) +
      each("dataTransferOut") +
      4 * each("dynamodbReadRequestUnits") +
      3 * each("dynamodbWriteRequestUnits") +
      5 * each("lambdaArmGbSeconds");
    expect(usageUsd(usage)).toBeCloseTo(expected, 12);
    expect(usageUsd(noUsage())).toBe(0);
    expect(toNanoUsd(1.0000000001)).toBe(1_000_000_001);
  });

  it("names a month in UTC and counts down to its end", () => {
    expect(monthOf(Date.UTC(2026, 11, 31, 23, 59))).toBe("2026-12");
    expect(monthEnd(Date.UTC(2026, 11, 31, 23, 59)).toISOString()).toBe("2027-01-01T00:00:00.000Z");
    expect(secondsToMonthEnd(Date.UTC(2026, 10, 30, 23, 59, 59))).toBe(1);
    expect(secondsToMonthEnd(Date.UTC(2026, 10, 30, 23, 59, 59, 999))).toBe(1);
  });
});

describe("the spend meter", () => {
  it("tells the ledger once a window while it serves, and early near the limit", async () => {
    const { ledger, meter, tick } = await started(100);
    expect(ledger.calls).toBe(1);
    await serve(meter, 50);
    expect(ledger.calls).toBe(1);
    tick(SPEND_WINDOW_MS);
    await serve(meter, 1);
    expect(ledger.calls).toBe(2);
    expect(ledger.months.get("2026-11")?.spentNano).toBe(nanoFor(51));

    // With $0.001 left, a tenth of it ($0.0001, about one megabyte) is worth a flush.
    ledger.months.set("2026-11", { spentNano: toNanoUsd(99.999) });
    tick(SPEND_WINDOW_MS);
    await serve(meter, 1);
    const calls = ledger.calls;
    await serve(meter, 2);
    expect(ledger.calls).toBeGreaterThan(calls);
  });

  it("pauses at the limit, says so once per threshold, and keeps to the window while paused", async () => {
    const { ledger, meter, crossings, tick } = await started(0.05);
    let served = 0;
    while (!(await meter.pause())) {
      await serve(meter, 1);
      served += 1;
      tick(100);
    }
    const transferUsd = (served * MB * prices.prices.dataTransferOut.usd) / 2 ** 30;
    expect(transferUsd).toBeGreaterThan(0.02);
    expect(crossings.map((c) => c.kind)).toEqual(["warning", "paused"]);
    expect(crossings[1]).toMatchObject({ month: "2026-11", limitUsd: 0.05, ceilingUsd: 0.05 });
    const spentUsd = (ledger.months.get("2026-11")?.spentNano ?? 0) / 1e9;
    expect(crossings[1]?.spentUsd).toBe(spentUsd);
    expect(spentUsd).toBeGreaterThanOrEqual(0.05);
    const pause = await meter.pause();
    expect(pause).toMatchObject({ limitUsd: 0.05, month: "2026-11" });
    expect(pause?.resetsAt.toISOString()).toBe("2026-12-01T00:00:00.000Z");

    const calls = ledger.calls;
    await serve(meter, 20);
    expect(ledger.calls).toBe(calls);
    tick(SPEND_WINDOW_MS);
    await serve(meter, 1);
    expect(ledger.calls).toBe(calls + 1);
    expect(crossings).toHaveLength(2);
  });

  it("learns of a pause, or a resume, within one window, idle or not, and turns with the month", async () => {
    const { ledger, meter, tick } = await started(0.05);
    ledger.months.set("2026-11", { spentNano: toNanoUsd(0.06) });
    expect(await meter.pause()).toBeUndefined();
    tick(SPEND_WINDOW_MS);
    expect(await meter.pause()).toBeDefined();
    ledger.months.set("2026-11", { spentNano: toNanoUsd(0.06), ceilingNano: toNanoUsd(0.11) });
    expect(await meter.pause()).toBeDefined();
    tick(SPEND_WINDOW_MS);
    expect(await meter.pause()).toBeUndefined();

    ledger.months.set("2026-11", { spentNano: toNanoUsd(0.2) });
    tick(SPEND_WINDOW_MS);
    await serve(meter, 1);
    expect(await meter.pause()).toBeDefined();
    tick(Date.UTC(2026, 11, 1) - Date.UTC(2026, 10, 28, 12));
    expect(await meter.pause()).toBeUndefined();
  });

  it("starts a new month unpaused, even within the window that paused the last", async () => {
    const { ledger, meter, tick } = meterOn(0.05, { start: Date.UTC(2026, 10, 30, 23, 59, 58) });
    ledger.months.set("2026-11", { spentNano: toNanoUsd(0.06) });
    await meter.start();
    expect(await meter.pause()).toBeDefined();
    tick(4_000);
    expect(await meter.pause()).toBeUndefined();
    expect(ledger.calls).toBe(1);
    // A tenth of the new month's limit served is worth an early flush, into the new month.
    await serve(meter, 60);
    expect(ledger.months.get("2026-12")?.spentNano).toBeGreaterThan(0);
  });

  it("answers on what it knows when the ledger is slow, and learns when the flush lands", async () => {
    vi.useFakeTimers();
    try {
      const { ledger, meter, tick } = await started(0.05);
      let land: (totals: LedgerTotals) => void = () => {};
      ledger.add = () => new Promise((resolve) => (land = resolve));
      tick(SPEND_WINDOW_MS);
      const answered = meter.pause();
      await vi.advanceTimersByTimeAsync(ANSWER_WAIT_MS);
      expect(await answered).toBeUndefined();
      land({ spentNano: toNanoUsd(0.06) });
      await vi.advanceTimersByTimeAsync(0);
      expect(await meter.pause()).toBeDefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it("asks the ledger itself for a request that comes before its init read has answered", async () => {
    const { ledger, meter } = meterOn(0.05);
    ledger.months.set("2026-11", { spentNano: toNanoUsd(0.06) });
    let answerRead: (totals: LedgerTotals) => void = () => {};
    ledger.read = () => new Promise((resolve) => (answerRead = resolve));
    const starting = meter.start();
    expect(await meter.pause()).toBeDefined();
    answerRead({ spentNano: 0 }); // older than the flush's answer: not taken
    await starting;
    expect(await meter.pause()).toBeDefined();
    expect(ledger.calls).toBe(1);
  });

  it("two instances flushing at once both count", async () => {
    const a = meterOn(100);
    const b = meterOn(100, { ledger: a.ledger });
    await Promise.all([a.meter.start(), b.meter.start()]);
    a.meter.record({ requests: 1, bytesOut: MB });
    b.meter.record({ requests: 1, bytesOut: MB });
    a.tick(SPEND_WINDOW_MS);
    b.tick(SPEND_WINDOW_MS);
    await Promise.all([a.meter.settle(), b.meter.settle()]);
    expect(a.ledger.months.get("2026-11")?.spentNano).toBe(2 * nanoFor(1));
  });

  it("never throws when the ledger fails: keeps the usage, retries it next window, and still counts it", async () => {
    const { ledger, meter, failures, tick } = meterOn(0.05);
    ledger.failing = true;
    await meter.start();
    await serve(meter, 3);
    tick(SPEND_WINDOW_MS);
    await serve(meter, 1);
    expect(failures).toEqual(["read", "flush"]);
    expect(await meter.pause()).toBeUndefined();

    ledger.failing = false;
    tick(SPEND_WINDOW_MS);
    await serve(meter, 1);
    expect(ledger.months.get("2026-11")?.spentNano).toBeGreaterThanOrEqual(nanoFor(5) - 2);

    // An outage cannot let an instance serve unmetered: its own unsent usage reaches the pause.
    ledger.failing = true;
    let served = 0;
    while (!(await meter.pause()) && served < 2000) {
      await serve(meter, 1);
      served += 1;
    }
    expect(await meter.pause()).toBeDefined();
  });
});

describe("an instance's spending guard, as the functions wire it", () => {
  const wire = (limit: number | undefined, ledger?: SpendLedger, env = {}) => {
    const { logger, lines } = recordingLogger();
    return { lines, wired: spendGuard({ spendLimitUsd: limit }, ledger, logger, env) };
  };

  it("with a limit and a ledger only, counts at the function's memory, logging each crossing once", async () => {
    const ledger = new MemoryLedger();
    const { lines, wired } = wire(0.0002, ledger, { AWS_LAMBDA_FUNCTION_MEMORY_SIZE: "2048" });
    await wired?.meter.start();
    const served = { bytesOut: 0, readUnits: 10, writeUnits: 20, durationMs: 999.2 };
    await wired?.guard.served(served);
    const one = usageUsd({ requests: 1, bytesOut: 0, readUnits: 10, writeUnits: 20, gbMs: 2000 });
    expect(ledger.months.get(monthOf(Date.now()))?.spentNano).toBe(toNanoUsd(one));
    while (!(await wired?.guard.pause())) await wired?.guard.served(served);
    const said = lines.map(({ level, message }) => `${level} ${message}`);
    expect(said).toEqual(["info stage near its spending limit", "error stage paused"]);
    expect(wire(1, ledger).wired).toBeDefined();
    expect(wire(undefined, ledger).wired).toBeUndefined();
    expect(wire(1, undefined).wired).toBeUndefined();
  });

  it("logs a ledger that fails, by its error's name and message", async () => {
    const ledger = new MemoryLedger();
    ledger.failing = true;
    const { lines, wired } = wire(1, ledger);
    await wired?.meter.start();
    ledger.read = () => Promise.reject("not an error");
    await wired?.meter.start();
    const failed = (message: string) => ({
      level: "error",
      message: "spending ledger read failed",
      fields: { error: { name: "Error", message } },
    });
    expect(lines).toEqual([failed("ledger down"), failed("not an error")]);
  });
});
