// `npm run deploy`: the bundles, one package priced (npm run cost's figures), `serverless deploy`
// of that package, the stage's throttle reconciled with its spending limit, then `npm run smoke`
// on the new stage.
import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { StopError, runWithFlags, stopIfFails } from "./lib/cli.mjs";
import { costSummary, stageCost } from "./lib/cost.mjs";
import { requireCredentials, smokePlan, stackOutputs, writerToken } from "./lib/stage.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const serverlessBin = `${root}node_modules/serverless/bin/serverless.js`;
/** Where the stage is packaged, priced, and deployed from. */
const PACKAGE_DIR = ".serverless";

const USAGE = `Usage: npm run deploy -- [options]

Refuses writes open to anyone unless ALLOW_ANONYMOUS_WRITES=true says so, checks that AWS
credentials are there, builds the bundles, packages the stage once and prints what it costs idle
and per million requests (npm run cost), deploys that package, then checks the stage with npm run
smoke (docs/deploying.md says with which token, or prints the command to run).

Options (all but --no-smoke pass through to serverless deploy):
  -s, --stage S       the stage (default dev)
  -r, --region R      its region (default us-east-1)
  --aws-profile P     the AWS profile to deploy with
  --force             deploy even when nothing changed
  --verbose           serverless's progress in detail
  --no-smoke          deploy without the check
  -h, --help          this text

Exit codes: 0 deployed and checked; the build's or serverless's code when either fails; 1 the
smoke check failed (the stage stays deployed); 2 a bad option, open writes, no AWS credentials, or
the stage's outputs or token cannot be read.`;

/** Runs a script of this repository with node and this terminal, to its end; its exit code. */
function node(/** @type {string[]} */ args) {
  const { status, signal } = spawnSync(process.execPath, args, { cwd: root, stdio: "inherit" });
  return status ?? (signal === "SIGINT" ? 130 : 1);
}

/** @param {import("./lib/cli.mjs").FlagValues & { stage: string, region: string }} values */
async function deploy(values) {
  const args = process.argv.slice(2).filter((arg) => arg !== "--no-smoke");
  if (values["aws-profile"]) process.env.AWS_PROFILE = values["aws-profile"];
  const guard = createRequire(import.meta.url)("../config/open-writes-guard.cjs");
  const problem = stopIfFails(() => guard.openWritesProblem(process.env));
  if (problem) throw new StopError(`refusing to deploy: ${problem}`);
  // As npm run token does: without credentials, one line now rather than after the build.
  await requireCredentials(values.region);
  const built = node(["scripts/build.mjs"]);
  if (built !== 0) return built;
  const where = ["--stage", values.stage, "--region", values.region];
  const packaged = node([serverlessBin, "package", ...where, "--package", PACKAGE_DIR]);
  if (packaged !== 0) return packaged;
  const template = `${PACKAGE_DIR}/cloudformation-template-update-stack.json`;
  const { cost } = await stageCost(JSON.parse(await readFile(`${root}${template}`, "utf8")));
  for (const line of costSummary(cost)) console.log(line);
  const deployed = node([serverlessBin, "deploy", ...args, "--package", PACKAGE_DIR]);
  if (deployed !== 0) return deployed;
  // A deploy may raise (or lower) the spending limit: the guard sets the stage's throttle to
  // what this month's spending under the new limit calls for.
  const settings = createRequire(import.meta.url)("../config/settings.cjs");
  if (settings.spendLimitSetting(process.env) !== "off") {
    const reconcile = ["invoke", "--function", "stageGuard", "--data", '{"action":"reconcile"}'];
    if (node([serverlessBin, ...reconcile, ...where]) !== 0) {
      console.error("deploy: the stage's throttle was not reconciled with its spending limit");
    }
  }
  if (values["no-smoke"]) return 0;

  const outputs = await stackOutputs(values);
  const plan = smokePlan(outputs, process.env);
  if ("print" in plan) {
    console.log(plan.print);
    return 0;
  }
  const smokeArgs = ["scripts/smoke.mjs", ...plan.flags];
  if (plan.token === "from-pool") {
    smokeArgs.push("--token", await writerToken(outputs, values));
  }
  console.log(`Checking the new stage: npm run smoke -- ${plan.flags.join(" ")}`);
  const checked = node(smokeArgs);
  if (checked !== 0) console.error("deploy: the stage is deployed, but its smoke check failed");
  return checked === 0 ? 0 : 1;
}

await runWithFlags({
  name: "deploy",
  usage: USAGE,
  flags: {
    stage: { type: "string", short: "s", default: "dev" },
    region: { type: "string", short: "r", default: "us-east-1" },
    "aws-profile": { type: "string" },
    force: { type: "boolean" },
    verbose: { type: "boolean" },
    "no-smoke": { type: "boolean", default: false },
  },
  run: deploy,
});
