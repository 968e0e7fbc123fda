// Integration: the spending limit's ledger on DynamoDB Local, shared by many meters.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SpendMeter } from "../../lib/spend/meter.js";
import { noUsage, toNanoUsd, usageUsd } from "../../lib/spend/pricing.js";
import { Sender } from "../../lib/storage/sender.js";
import { SpendLedgerTable } from "../../lib/storage/spend-ledger.js";
import { type PostsTable, freshTable } from "../helpers/db.js";

let table: PostsTable;
let ledger: SpendLedgerTable;

beforeAll(async () => {
  table = await freshTable("spend-ledger");
  const sender = new Sender(table.documentClient, [table.idempotencyTableName]);
  ledger = new SpendLedgerTable(sender, table.idempotencyTableName);
});
afterAll(async () => {
  await table.drop();
});

describe("the spend ledger", () => {
  it("adds every instance's flush atomically, in an item the posts never see", async () => {
    const usage = { ...noUsage(), requests: 1, bytesOut: 1000, readUnits: 0.5 };
    const nano = toNanoUsd(usageUsd(usage));
    const meters = Array.from({ length: 8 }, () => {
      let clock = Date.UTC(2026, 10, 28);
      const quiet = { onCrossing: () => {}, onFailure: () => {} };
      return new SpendMeter({ limitUsd: 10, ledger, now: () => (clock += 20_000), ...quiet });
    });
    await Promise.all(
      meters.map(async (meter) => {
        meter.record(usage);
        await meter.settle();
      }),
    );
    const month = await ledger.read("2026-11");
    expect(month).toEqual({ spentNano: 8 * nano, ceilingNano: undefined });
    expect(await table.posts()).toEqual([]);
    expect(await ledger.read("2026-10")).toEqual({ spentNano: 0, ceilingNano: undefined });
  });

  it("lifts a month's ceiling to its spending plus the limit its instances flushed under", async () => {
    await ledger.add("2026-09", { ...noUsage(), requests: 3 }, 5_000, 1_000);
    const lifted = { spentNano: 5_000, ceilingNano: 6_000, limitNano: 1_000 };
    expect(await ledger.lift("2026-09")).toEqual(lifted);
    expect(await ledger.read("2026-09")).toEqual({ spentNano: 5_000, ceilingNano: 6_000 });
    expect(await ledger.lift("2026-08")).toBeUndefined();
  });
});
