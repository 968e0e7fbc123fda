// `npm run resume`: lifts this month's spending-limit pause by one more limit (docs/operating.md).
import { runWithFlags, StopError } from "./lib/cli.mjs";
import { LOCAL_SDK_SETTINGS } from "./lib/dynamodb-local.mjs";
import { loadLib } from "./lib/lib-code.mjs";
import { awsSdk, stackOutputs, withClient } from "./lib/stage.mjs";

const USAGE = `Usage: npm run resume -- [options]

Lets a stage paused by its spending limit (SPEND_LIMIT_USD) serve again this month: its ceiling
becomes what it has spent so far plus one more limit, and the new ceiling is printed. The stage
pauses again past it. Without --stage, the stage is npm start's (DynamoDB Local on DYNAMODB_PORT,
8000 by default); its instances see the new ceiling within 10 seconds. With --stage, the deployed
stage's guard also lifts the gateway's throttle within seconds.

Options:
  --stage S    a deployed stage (default: npm start's)
  --region R   its region (default us-east-1, as npm run deploy)
  -h, --help   this text

Exit codes: 0 lifted, or nothing to lift this month; 2 the ledger could not be reached (npm start
not running, no AWS credentials, no such stack), with one line saying what to do.`;

const usd = (/** @type {number} */ nano) => `$${(nano / 1e9).toFixed(4)}`;

/** The ledger's table and the SDK settings to reach it: npm start's, or a stage's stack's. */
async function ledgerPlace(/** @type {{ stage?: string, region: string }} */ where) {
  if (where.stage === undefined) {
    const port = process.env.DYNAMODB_PORT || "8000";
    return {
      table: process.env.IDEMPOTENCY_TABLE ?? "blog-post-api-local-idempotency-keys",
      settings: { ...LOCAL_SDK_SETTINGS, endpoint: `http://localhost:${port}`, maxAttempts: 1 },
      stack: "",
    };
  }
  const outputs = await stackOutputs({ stage: where.stage, region: where.region });
  const table = outputs.SpendLedgerTableName;
  if (!table)
    throw new StopError(`stage ${where.stage} has no spending limit (SPEND_LIMIT_USD=off)`);
  return { table, settings: { region: where.region }, stack: `blog-post-api-${where.stage}` };
}

await runWithFlags({
  name: "resume",
  usage: USAGE,
  flags: { stage: { type: "string" }, region: { type: "string", default: "us-east-1" } },
  async run(where) {
    const place = await ledgerPlace(where);
    /** @type {typeof import("@aws-sdk/client-dynamodb")} */
    const { DynamoDBClient } = await awsSdk("dynamodb");
    const { DynamoDBDocumentClient } = await import("@aws-sdk/lib-dynamodb");
    /** @type {typeof import("./lib/spend-code.js")} */
    const code = await loadLib("scripts/lib/spend-code.ts");
    const client = new DynamoDBClient(place.settings);
    const ledger = new code.SpendLedgerTable(
      new code.Sender(DynamoDBDocumentClient.from(client), []),
      place.table,
    );
    const month = code.monthOf(Date.now());
    const lifted = await withClient(client, where.region, place.stack, () =>
      ledger.lift(month),
    ).catch((/** @type {Error} */ error) => {
      if (where.stage || !/ECONNREFUSED|connect/i.test(error.message)) throw error;
      throw new StopError("DynamoDB Local is not running: start the API with npm start first");
    });
    if (!lifted) {
      console.log(`resume: nothing was spent in ${month} (UTC), so nothing is paused`);
      return 0;
    }
    const ceiling = lifted.ceilingNano ?? 0;
    console.log(
      `resume: ${month} (UTC) has spent ${usd(lifted.spentNano)}; the stage now pauses at ` +
        `${usd(ceiling)}, one more limit of ${usd(lifted.limitNano)}`,
    );
    return 0;
  },
});
