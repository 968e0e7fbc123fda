// What a stage's own use costs at list price: requests, bytes sent, DynamoDB units and Lambda
// time, priced from config/prices.json (the file `npm run cost` reads), from the first unit.
// Free tiers are never deducted, so a limit priced here is reached early rather than late.
import priceFile from "../../config/prices.json" with { type: "json" };

/** What one instance used since it last told the ledger. */
export interface Usage {
  /** Requests answered: each is an API Gateway request and a Lambda invocation. */
  requests: number;
  /** Bytes of answer bodies as they went out (the gzipped size when gzipped). */
  bytesOut: number;
  readUnits: number;
  writeUnits: number;
  /** Lambda time in GB-milliseconds: each request's billed milliseconds times the memory in GB. */
  gbMs: number;
}

/** A price as the data file gives it: `usd` for `per` units. */
interface Price {
  usd: number;
  per: number;
}

/** The prices the meter needs; the build bundles only these (scripts/build.mjs). */
export type Rates = Record<
  | "apiGatewayRestRequests"
  | "lambdaRequests"
  | "lambdaArmGbSeconds"
  | "dynamodbReadRequestUnits"
  | "dynamodbWriteRequestUnits"
  | "dataTransferOut",
  Price
>;

export const RATES: Rates = priceFile.prices;

/** Nothing used. */
export const noUsage = (): Usage => ({
  requests: 0,
  bytesOut: 0,
  readUnits: 0,
  writeUnits: 0,
  gbMs: 0,
});

/** Adds `more` into `into`, in place. */
export function addUsage(into: Usage, more: Partial<Usage>): Usage {
  for (const name of Object.keys(into) as (keyof Usage)[]) into[name] += more[name] ?? 0;
  return into;
}

const GB = 2 ** 30;
const each = ({ usd, per }: Price, amount: number) => (usd / per) * amount;

/** What `usage` costs in US dollars at `rates`. */
export function usageUsd(usage: Usage, rates: Rates = RATES): number {
  return (
    each(rates.apiGatewayRestRequests, usage.requests) +
    each(rates.lambdaRequests, usage.requests) +
    each(rates.lambdaArmGbSeconds, usage.gbMs / 1000) +
    each(rates.dynamodbReadRequestUnits, usage.readUnits) +
    each(rates.dynamodbWriteRequestUnits, usage.writeUnits) +
    each(rates.dataTransferOut, usage.bytesOut / GB)
  );
}

/**
 * The ledger keeps whole nano-dollars, so that adding from many instances is exact; a window's
 * cost is rounded up, never down.
 */
export const toNanoUsd = (usd: number) => Math.ceil(usd * 1e9);
