// Every command package.json runs through one of this repository's scripts answers --help with
// its usage and exit code 0, and an unknown flag with one line and exit code 2, doing nothing else.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runScript } from "../helpers/run-script.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const { scripts } = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as {
  scripts: Record<string, string>;
};
/** `npm run <name>` → the script file it runs with node. */
const commands = Object.entries(scripts)
  .map(([name, line]) => [name, /^node ((?:scripts|bench)\/\S+\.mjs)$/.exec(line)?.[1]] as const)
  .filter((entry): entry is readonly [string, string] => entry[1] !== undefined);

/** Runs a command's script with `args`; its exit code and what it printed. */
function run(script: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  // No AWS, no service: a command that went on past its flags would fail differently.
  return runScript(script, args, {
    ...process.env,
    PORT: "1",
    AWS_PROFILE: "none-such",
    ...extraEnv,
  });
}

describe("every command's skeleton", () => {
  it("covers every command that runs a script of this repository", () => {
    const scriptsRun = Object.entries(scripts).filter(([, line]) => /(scripts|bench)\//.test(line));
    expect(commands.map(([name]) => name)).toEqual(scriptsRun.map(([name]) => name));
    expect(commands.length).toBeGreaterThan(10);
  });

  it.each(commands)("npm run %s -- --help: its usage, exit code 0", async (_name, script) => {
    const { code, stdout, stderr } = await run(script, ["--help"]);
    expect([code, stderr]).toEqual([0, ""]);
    expect(stdout).toMatch(/^Usage: npm /);
  });

  it.each(commands)("npm run %s -- --bogus: one line, exit code 2", async (name, script) => {
    const { code, stdout, stderr } = await run(script, ["--bogus"]);
    expect([code, stdout]).toEqual([2, ""]);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toContain("'--bogus'");
    expect(stderr).toMatch(new RegExp(`^(npm )?${name}: `));
  });
});

describe("npm run deploy refuses in one line, before building anything", () => {
  // No credentials anywhere: nothing on standard output, where the build prints its count.
  const noCredentials = {
    AWS_ACCESS_KEY_ID: "",
    AWS_SECRET_ACCESS_KEY: "",
    AWS_CONFIG_FILE: "/nonexistent/config",
    AWS_SHARED_CREDENTIALS_FILE: "/nonexistent/credentials",
    AWS_EC2_METADATA_DISABLED: "true",
  };

  it.each([
    [{}, /^deploy: refusing to deploy: no authorizer is configured.*ALLOW_ANONYMOUS_WRITES=true/],
    [{ AUTH_USER_POOL: "true" }, /^deploy: no AWS credentials found: set AWS_PROFILE/],
  ])("with %j (open writes, then an authorizer but no credentials)", async (settings, message) => {
    const { code, stdout, stderr } = await run("scripts/deploy.mjs", [], {
      ...noCredentials,
      ...settings,
    });
    expect([code, stdout]).toEqual([2, ""]);
    expect(stderr).toMatch(message);
    expect(stderr.trim().split("\n")).toHaveLength(1);
  });
});
