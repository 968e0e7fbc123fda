// `npm run deploy`: builds the bundles, runs `serverless deploy` (arguments passed through), then
// checks the new stage with `npm run smoke`: with a token from the stage's own pool, or with none
// when writes are open on purpose; with an issuer of your own, it prints the smoke command instead.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { runWithFlags } from "./lib/cli.mjs";
import { hasUserPool, requireCredentials, stackOutputs, writerToken } from "./lib/stage.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const serverlessBin = `${root}node_modules/serverless/bin/serverless.js`;

const USAGE = `Usage: npm run deploy -- [options]

Checks that AWS credentials are there, builds the bundles, runs serverless deploy, then checks the
stage with npm run smoke (docs/deploying.md says with which token, or prints the command to run).

Options (all but --no-smoke pass through to serverless deploy):
  -s, --stage S       the stage (default dev)
  -r, --region R      its region (default us-east-1)
  --aws-profile P     the AWS profile to deploy with
  --force             deploy even when nothing changed
  --verbose           serverless's progress in detail
  --no-smoke          deploy without the check
  -h, --help          this text

Exit codes: 0 deployed and checked; the build's or serverless's code when either fails; 1 the
smoke check failed (the stage stays deployed); 2 a bad option, no AWS credentials, or the stage's
outputs or token cannot be read.`;

/**
 * How to check the stage after a deploy: the smoke's flags, and whether it gets a token from the
 * stage's pool or runs without one; or, for a stage whose tokens come from elsewhere, the command
 * to print.
 * @param {Record<string, string>} outputs the stack's outputs
 * @param {NodeJS.ProcessEnv} env the settings the deploy ran with
 * @returns {{ flags: string[], token: "from-pool" | "none" } | { print: string }}
 */
export function smokePlan(outputs, env) {
  const origin = smokeOrigin(env);
  const flags = [
    "--url",
    outputs.ServiceEndpoint ?? "<the stage's URL>",
    ...(env.TIME_ZONE ? ["--time-zone", env.TIME_ZONE] : []),
    ...(origin ? ["--origin", origin] : []),
  ];
  if (hasUserPool(outputs)) return { flags, token: "from-pool" };
  if ((env.AUTH_ISSUER_URL ?? "").trim() === "" && env.ALLOW_ANONYMOUS_WRITES === "true") {
    return { flags, token: "none" };
  }
  return {
    print:
      `Writes on this stage need a token from ${env.AUTH_ISSUER_URL || "your issuer"}; check the ` +
      `stage with: npm run smoke -- ${flags.join(" ")} --token <access token>`,
  };
}

/**
 * The origin the smoke checks CORS with: the first of CORS_ORIGINS (any origin when that is `*`),
 * or none when CORS is off.
 * @param {NodeJS.ProcessEnv} env
 */
export function smokeOrigin(env) {
  const first = (env.CORS_ORIGINS ?? "")
    .split(",")
    .map((origin) => origin.trim())
    .find(Boolean);
  return first === "*" ? "https://any-origin.example" : first;
}

/** Runs a script of this repository with node and this terminal; resolves with its exit code. */
function node(/** @type {string[]} */ args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: "inherit" });
    child.once("exit", (code, signal) => resolve(code ?? (signal === "SIGINT" ? 130 : 1)));
  });
}

/** @param {{ values: import("./lib/cli.mjs").FlagValues, argv: string[] }} line */
async function deploy({ values, argv }) {
  const where = { stage: values.stage, region: values.region };
  const args = argv.filter((arg) => arg !== "--no-smoke");
  if (values["aws-profile"]) process.env.AWS_PROFILE = values["aws-profile"];
  // As npm run token does: without credentials, one line now rather than after the build.
  await requireCredentials(where.region);
  const built = await node(["scripts/build.mjs"]);
  if (built !== 0) return built;
  const deployed = await node([serverlessBin, "deploy", ...args]);
  if (deployed !== 0 || values["no-smoke"]) return deployed;

  const outputs = await stackOutputs(where);
  const plan = smokePlan(outputs, process.env);
  if ("print" in plan) {
    console.log(plan.print);
    return 0;
  }
  const smokeArgs = ["scripts/smoke.mjs", ...plan.flags];
  if (plan.token === "from-pool") {
    smokeArgs.push("--token", await writerToken(outputs, where, { patienceMs: 90_000 }));
  }
  console.log(`Checking the new stage: npm run smoke -- ${plan.flags.join(" ")}`);
  const checked = await node(smokeArgs);
  if (checked !== 0) console.error("deploy: the stage is deployed, but its smoke check failed");
  return checked === 0 ? 0 : 1;
}

// Imported by the tests for smokePlan; run as a command otherwise.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  await runWithFlags(
    {
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
      read: (values) => ({ values, argv }),
      run: deploy,
    },
    argv,
  );
}
