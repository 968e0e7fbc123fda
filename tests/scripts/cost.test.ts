// `npm run cost` on packaged templates of the settings a stage is deployed with: what each costs
// idle, its options and errors, and cfn-lint over each template (no error, warnings allowed).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SHARED_SETTINGS, packagedBeforeAll } from "../helpers/package.js";
import { runCommand, runScript } from "../helpers/run-script.js";

/** Each variant (as other tests package it too): its settings and what it costs a month idle. */
const VARIANTS: [string, Record<string, string>, number][] = [
  ["alarms and webhooks", SHARED_SETTINGS.alarmed, 0],
  // The machine client's $6.
  ["the pool, a machine client and each limit", SHARED_SETTINGS.pooled, 6],
  // The web ACL's $5 and its one rule's $1; the pool, alarms, webhooks, logs and tracing cost $0.
  ["every option", SHARED_SETTINGS.everyOption, 6],
];

const packages = packagedBeforeAll(
  Object.fromEntries(VARIANTS.map(([name, settings]) => [name, settings])),
);
/** A variant's packaged template file. */
const templateOf = (name: string) =>
  join(packages[name]?.dir ?? "", "cloudformation-template-update-stack.json");

// Its --help and an unknown flag: tests/scripts/commands.test.ts, as for every command.
const cost = (args: string[]) => runScript("scripts/cost.mjs", args, process.env);

describe("npm run cost", () => {
  it("refuses a file that is no template in one line, exit code 2", async () => {
    const { code, stderr } = await cost(["--template", "package.json"]);
    expect([code, stderr]).toEqual([2, "cost: package.json has no Resources\n"]);
  });

  it.each(VARIANTS.map(([name, , usd]) => ({ name, usd })))(
    "with $name, costs USD $usd a month idle, every resource priced",
    async ({ name, usd }) => {
      const { code, stdout, stderr } = await cost(["--json", "--template", templateOf(name)]);
      expect([code, stderr]).toEqual([0, ""]);
      const priced = JSON.parse(stdout);
      expect(priced).toMatchObject({ unknown: [], idle: { totalUsd: usd } });
      expect(priced.perMillion.totalUsd).toBeGreaterThan(3.5);
    },
  );

  it("prints a table: the idle total, the requests' total, and what they assume", async () => {
    const { code, stdout } = await cost(["--template", templateOf("alarms and webhooks")]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/\$0\.00 {2}idle total/);
    expect(stdout).toMatch(/\$\d+\.\d\d +\$\d+\.\d\d {2}total/);
    expect(stdout).toContain("Storage");
  });
});

// Without cfn-lint on PATH the checks say so in one line and are skipped; in CI, where it is
// installed, a missing one fails them instead.
const cfnLintFound = (await runCommand("cfn-lint", ["--version"], process.env)).code === 0;
const skipLint = !cfnLintFound && !process.env.CI;
if (skipLint) console.log("cost.test: cfn-lint is not on PATH (pip install cfn-lint): skipped");

describe.skipIf(skipLint)("cfn-lint", () => {
  it("finds no error in any variant's template (one run over all of them)", async () => {
    const files = VARIANTS.map(([name]) => templateOf(name));
    const { code, stdout } = await runCommand("cfn-lint", files, process.env, 60_000);
    const errors = stdout.split("\n").filter((line) => /^E\d{4}/.test(line));
    // cfn-lint's exit code adds 2 for errors and 4 for warnings; 1 is its own failure.
    expect({ errors, failed: typeof code !== "number" || (code & 3) !== 0 }).toEqual({
      errors: [],
      failed: false,
    });
  }, 60_000);
});
