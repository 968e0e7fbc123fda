// The spending limit's ledger: one item a month in the Idempotency-Key table, outside the posts'
// key space, so the list, the stream and its filter never see it. Every instance adds its usage
// with one atomic ADD whose answer is the month's total; nothing reads it per request.
import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { LedgerTotals, SpendLedger } from "../spend/meter.js";
import type { Usage } from "../spend/pricing.js";
import { ConditionFailed, type Sender } from "./sender.js";

/** A ledger key holds a space, which no Idempotency-Key may (visible ASCII only). */
export const ledgerKey = (month: string) => `spend ${month}`;

/** How long a month's item is kept: a year past it, for its owner to read back. */
const KEEP_SECONDS = 400 * 24 * 3600;

/** The stored item's names for each count of a usage. */
const COUNTED: Record<keyof Usage, string> = {
  requests: "requests",
  bytesOut: "bytes_out",
  readUnits: "read_units",
  writeUnits: "write_units",
  gbMs: "lambda_gb_ms",
};

interface LedgerItem {
  spent_nano_usd?: number;
  ceiling_nano_usd?: number;
  limit_nano_usd?: number;
}

const totalsOf = (item: LedgerItem | undefined): LedgerTotals => ({
  spentNano: item?.spent_nano_usd ?? 0,
  ceilingNano: item?.ceiling_nano_usd,
});

/** How often an epoch second passes: the table's TTL counts in them. */
const epochSeconds = () => Math.floor(Date.now() / 1000);

export class SpendLedgerTable implements SpendLedger {
  constructor(
    private readonly sender: Sender,
    private readonly tableName: string,
  ) {}

  async read(month: string): Promise<LedgerTotals> {
    const get = new GetCommand({ TableName: this.tableName, Key: { key: ledgerKey(month) } });
    return totalsOf((await this.sender.send(get)).Item);
  }

  async add(
    month: string,
    usage: Usage,
    nanoUsd: number,
    limitNano: number,
  ): Promise<LedgerTotals> {
    const names = Object.keys(COUNTED) as (keyof Usage)[];
    const update = new UpdateCommand({
      TableName: this.tableName,
      Key: { key: ledgerKey(month) },
      UpdateExpression:
        `ADD spent_nano_usd :spent, ${names.map((n) => `${COUNTED[n]} :${n}`).join(", ")} ` +
        "SET expires_at = if_not_exists(expires_at, :expires), limit_nano_usd = :limit",
      ExpressionAttributeValues: {
        ":spent": nanoUsd,
        ":limit": limitNano,
        ":expires": epochSeconds() + KEEP_SECONDS,
        ...Object.fromEntries(names.map((n) => [`:${n}`, usage[n]])),
      },
      ReturnValues: "ALL_NEW",
    });
    return totalsOf((await this.sender.send(update)).Attributes);
  }

  /**
   * Lifts a month's ceiling to what it has spent plus one more limit, the one its instances last
   * flushed under (`npm run resume`), and answers with the totals after; undefined when nothing
   * was spent that month, so nothing is paused.
   */
  async lift(month: string): Promise<(LedgerTotals & { limitNano: number }) | undefined> {
    const update = new UpdateCommand({
      TableName: this.tableName,
      Key: { key: ledgerKey(month) },
      UpdateExpression: "SET ceiling_nano_usd = spent_nano_usd + limit_nano_usd",
      ConditionExpression: "attribute_exists(limit_nano_usd)",
      ReturnValues: "ALL_NEW",
    });
    try {
      const item: LedgerItem | undefined = (await this.sender.send(update)).Attributes;
      return { ...totalsOf(item), limitNano: item?.limit_nano_usd ?? 0 };
    } catch (error) {
      if (error instanceof ConditionFailed) return undefined;
      throw error;
    }
  }
}
