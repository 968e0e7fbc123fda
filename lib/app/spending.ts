// The spending limit's wiring: an instance's meter over the month's ledger item (in the
// Idempotency-Key table), its crossings and failures told in the instance's log, and its usage
// counted from what the pipeline served (docs/operating.md, Spending limit).
import type { Logger } from "../http/logger.js";
import type { SpendGuard } from "../http/spending.js";
import { type SpendLedger, SpendMeter } from "../spend/meter.js";
import type { Config } from "./config.js";

/** Lambda's memory for the function, which its time is billed by; 1024 MB where it is not set. */
const memoryGb = (env: NodeJS.ProcessEnv) =>
  Number(env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE || 1024) / 1024;

/** The meter and the guard the pipeline uses, or undefined when the limit is off. */
export function spendGuard(
  config: Pick<Config, "spendLimitUsd">,
  ledger: SpendLedger | undefined,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): { meter: SpendMeter; guard: SpendGuard } | undefined {
  if (config.spendLimitUsd === undefined || !ledger) return undefined;
  const meter = new SpendMeter({
    limitUsd: config.spendLimitUsd,
    ledger,
    onCrossing: ({ kind, ...facts }) => {
      if (kind === "paused") logger.error("stage paused", facts);
      else logger.info("stage near its spending limit", facts);
    },
    onFailure: (failure, during) => {
      const error = failure instanceof Error ? failure : new Error(String(failure));
      logger.error(`spending ledger ${during} failed`, {
        error: { name: error.name, message: error.message },
      });
    },
  });
  const gb = memoryGb(env);
  const guard: SpendGuard = {
    pause: () => meter.pause(),
    served: async ({ bytesOut, readUnits, writeUnits, durationMs }) => {
      meter.record({
        requests: 1,
        bytesOut,
        readUnits,
        writeUnits,
        gbMs: Math.ceil(durationMs) * gb,
      });
      await meter.settle();
    },
  };
  return { meter, guard };
}
