// `npm run cost`: what a stage costs, from the template `serverless package` writes for it, before
// it is deployed and without an AWS account (docs/deploying.md).
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { StopError, runWithFlags } from "./lib/cli.mjs";
import { WORKLOAD, stageCost, sum } from "./lib/cost.mjs";
import { worstLines, worstMonth } from "./lib/cost-limit.mjs";
import { loadLib } from "./lib/lib-code.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const serverlessBin = createRequire(import.meta.url).resolve("serverless/bin/serverless.js");

const USAGE = `Usage: npm run cost -- [options]

Packages the stage with the settings in this shell (docs/configuration.md), as serverless package
does, and prints what it costs at the us-east-1 list prices of config/prices.json: each resource's
cost a month with no requests at all, after the always-free tiers; what a million requests of a
stated mix add; the worst a month can cost with the spending limit on; and what it cannot price.
No AWS account is needed.

Options:
  --stage S        the stage (default dev)
  --template FILE  price this packaged template (cloudformation-template-update-stack.json)
  --json           print { idle, perMillion, unknown, worst } as JSON
  -h, --help       this text

Exit codes: 0 printed; 1 packaging failed; 2 a bad option, or a template that cannot be read.`;

/** The template in `file`, or a StopError saying why not. */
async function readTemplate(/** @type {string} */ file) {
  const template = await readFile(file, "utf8").then(JSON.parse, (/** @type {Error} */ error) => {
    throw new StopError(`cannot read ${file}: ${error.message}`);
  });
  if (typeof template?.Resources !== "object") throw new StopError(`${file} has no Resources`);
  return template;
}

/**
 * The template `serverless package` writes for `stage`, packaged from a copy of the service:
 * osls empties the service's own .serverless folder first, which `npm run package` may be using.
 */
async function packaged(/** @type {string} */ stage) {
  if (!existsSync(`${root}dist`)) throw new StopError("no bundles in dist/: run npm run build");
  const copy = await mkdtemp(join(tmpdir(), "blog-post-cost-"));
  try {
    await copyFile(`${root}serverless.yml`, join(copy, "serverless.yml"));
    for (const name of ["config", "dist", "node_modules", "package.json"]) {
      await symlink(`${root}${name}`, join(copy, name));
    }
    const args = [serverlessBin, "package", "--stage", stage, "--package", join(copy, "out")];
    await promisify(execFile)(process.execPath, args, { cwd: copy }).catch((error) => {
      // osls says why on stdout, after "Error:"; the deepest cause comes last.
      const said = String(error.stdout)
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean);
      const why = said.slice(said.indexOf("Error:") + 1).at(-1) ?? error.message;
      throw new StopError(`serverless package failed: ${why.replace(/^.*rejection: /, "")}`, 1);
    });
    return await readTemplate(join(copy, "out", "cloudformation-template-update-stack.json"));
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

const usd = (/** @type {number} */ n) => `$${n.toFixed(2)}`.padStart(8);

/**
 * The figures as a table, with what they assume.
 * @param {Awaited<ReturnType<typeof stageCost>>["cost"]} cost @param {any} prices
 */
function table({ idle, perMillion, unknown }, prices, stage = "") {
  const { mix, posts, postBytes, listBytes: bytes } = WORKLOAD;
  const shown = idle.lines.filter((line) => line.note !== prices.perUseOnly[line.type ?? ""]);
  const [n, pc] = [(x = 0) => x.toLocaleString("en"), (x = 0) => `${Math.round(x * 100)}%`];
  return [
    `${stage}: ${prices.region} list prices read ${prices.read} (config/prices.json)\n`,
    "Idle, a month with no requests at all, after the always-free tiers:",
    ...shown.map((line) => `${usd(line.usd)}  ${line.resource} (${line.type}): ${line.note}`),
    `${usd(0)}  ${idle.lines.length - shown.length} more resources, billed only per use`,
    `${usd(idle.totalUsd)}  idle total\n`,
    `${n(WORKLOAD.requests)} requests: ${pc(mix.list)} lists, ${pc(mix.get)} gets, ` +
      `${pc(mix.write)} writes; a list of ${posts} posts of about ${postBytes} bytes is ` +
      `${n(bytes.plain)} bytes, ${n(bytes.gzip)} gzipped\n   plain    gzip`,
    ...perMillion.lines.map(
      (line) =>
        `${usd(line.usd)}${usd(line.gzipUsd)}  ${line.resource}: ${n(line.units)}` +
        (line.note ? ` (${line.note})` : ""),
    ),
    `${usd(perMillion.totalUsd)}${usd(sum(perMillion.lines, "gzipUsd"))}  total\n`,
    unknown.length ? "Not priced, so not in the totals:" : "Every resource is priced.",
    ...unknown.map((u) => `  ${u.resource} (${u.type}): ${u.why}`),
    "\nStorage (posts, backups, logs, packages) is billed by the GB-month beside these figures.",
    "Requests are priced from the first unit; Lambda's durations are local bench figures",
    "(docs/performance.md). docs/deploying.md says what each line assumes and what only a bill",
    "settles (a poller's real rate; whether an unused app client is billed).",
  ].join("\n");
}

await runWithFlags({
  name: "cost",
  usage: USAGE,
  flags: {
    stage: { type: "string", default: "dev" },
    template: { type: "string" },
    json: { type: "boolean", default: false },
  },
  async run({ stage, template: file, json }) {
    const template = file ? await readTemplate(file) : await packaged(stage);
    const { prices, cost } = await stageCost(template);
    const worst = worstMonth(template, await loadLib("scripts/lib/spend-code.ts"));
    const stageName = file ?? `stage ${stage}`;
    const text = () => `${table(cost, prices, stageName)}\n\n${worstLines(worst).join("\n")}`;
    console.log(json ? JSON.stringify({ ...cost, worst }, null, 2) : text());
    return 0;
  },
});
