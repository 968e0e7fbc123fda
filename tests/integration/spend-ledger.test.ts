// Integration: the spending limit's ledger on DynamoDB Local, shared by many meters.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spendGuard } from "../../lib/app/spending.js";
import type { Logger } from "../../lib/http/logger.js";
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
      return new SpendMeter({ limitUsd: 10, ledger, now: () => (clock += 20_000) });
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

describe("an instance's spending guard, wired as the functions wire it", () => {
  it("is off without a limit, and with one pauses once what it served reaches it, saying so once", async () => {
    const lines: string[] = [];
    const logger: Logger = {
      info: (message) => lines.push(`info ${message}`),
      error: (message) => lines.push(`error ${message}`),
    };
    const config = { ...table.config, spendLimitUsd: undefined };
    expect(spendGuard(config, table.documentClient, logger)).toBeUndefined();
    const env = { AWS_LAMBDA_FUNCTION_MEMORY_SIZE: "512" };
    const wired = spendGuard(
      { ...config, spendLimitUsd: 0.001 },
      table.documentClient,
      logger,
      env,
    );
    await wired?.meter.start();
    const megabyte = { bytesOut: 2 ** 20, readUnits: 1, writeUnits: 0, durationMs: 2.5 };
    for (let i = 0; i < 20 && !(await wired?.guard.pause()); i += 1) {
      await wired?.guard.served(megabyte);
    }
    expect(await wired?.guard.pause()).toMatchObject({ limitUsd: 0.001 });
    expect(lines).toEqual(["info stage near its spending limit", "error stage paused"]);
  });
});
