// What the commands run of the spending limit's code in lib/ (npm run resume, npm run cost),
// bundled for them by scripts/lib/lib-code.mjs.
export { monthOf } from "../../lib/spend/calendar.js";
export { SPEND_WINDOW_MS } from "../../lib/spend/meter.js";
export { noUsage, usageUsd } from "../../lib/spend/pricing.js";
export { SpendLedgerTable } from "../../lib/storage/spend-ledger.js";
export { Sender } from "../../lib/storage/sender.js";
