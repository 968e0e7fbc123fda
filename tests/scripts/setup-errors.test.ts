// What a person sees when the machine or the workspace is not ready: one message saying what to
// do, a non-zero exit, no stack trace, and nothing left running.
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { symlinkSync, writeFileSync } from "node:fs";
import { type Server, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/ports.mjs";
import { DATA_VERSION_FILE, javaMajor } from "../../scripts/lib/setup-checks.mjs";
import { runCommand } from "../helpers/run-script.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "blog-post-setup-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A file of the scratch folder holding `text`, in its folders; its path. */
function scratchFile(path: string, text: string) {
  const file = join(scratch, path);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, text);
  return file;
}

/** PATHs with node, npm and sh (npm runs scripts with it): one without java, one with Java 11. */
const withoutJava = join(scratch, "bin-without-java");
const withOldJava = join(scratch, "bin-with-java-11");
const npm = realpathSync(execFileSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).trim());
for (const dir of [withoutJava, withOldJava]) {
  mkdirSync(dir);
  symlinkSync(process.execPath, join(dir, "node"));
  symlinkSync(npm, join(dir, "npm"));
  symlinkSync("/bin/sh", join(dir, "sh"));
}
const java11 = `echo 'openjdk version "11.0.22" 2024-01-16' >&2\necho 'OpenJDK Runtime Environment' >&2`;
chmodSync(scratchFile("bin-with-java-11/java", `#!/bin/sh\n${java11}\n`), 0o755);

/** A port a server of the test's own holds while npm start is asked to use it. */
const heldPort = await freePort();

/**
 * Runs a command to its end and expects one clean message holding `phrases`. At most 150 s: Java
 * on damaged data takes about 20 s on a quiet machine, several times that beside another suite.
 */
async function expectOneCleanMessage(
  [command, ...args]: string[],
  env: NodeJS.ProcessEnv,
  phrases: (RegExp | string)[],
) {
  const { code, stdout, stderr } = await runCommand(command!, args, env, 150_000);
  const output = `${stdout}${stderr}`;
  expect(code, output).not.toBe(0);
  expect(code, output).not.toBeNull();
  for (const phrase of phrases) expect(output).toMatch(phrase);
  // A stack trace has lines such as "    at startDynamoDbLocal (file:///…)".
  expect(output).not.toMatch(/^\s+at \S/m);
  expect(output).not.toMatch(/❯/);
}

/** `npm start` (scripts/start.mjs) on free ports with a data folder of the test's own. */
async function startRefuses(settings: NodeJS.ProcessEnv, phrases: (RegExp | string)[], cwd = root) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(await freePort()),
    LAMBDA_PORT: String(await freePort()),
    DYNAMODB_PORT: String(await freePort()),
    DYNAMODB_DATA_DIR: join(scratch, `data-${Math.random().toString(36).slice(2)}`),
    ...settings,
  };
  await expectOneCleanMessage([process.execPath, join(cwd, "scripts/start.mjs")], env, phrases);
  // Nothing left running: no process with the data folder in its command line.
  const { stdout } = await runCommand("ps", ["-eo", "args="], process.env);
  expect(stdout.split("\n").filter((line) => line.includes(env.DYNAMODB_DATA_DIR!))).toEqual([]);
}

const JAVA_HOW_TO = [
  "DynamoDB Local",
  "apt-get install openjdk-17",
  "brew install",
  "winget install",
];

describe("javaMajor", () => {
  it.each([
    ['openjdk version "17.0.15" 2025-04-15', 17],
    ['java version "1.8.0_392"', 8],
    ['openjdk version "21" 2023-09-19', 21],
    ["no version here", undefined],
  ])("reads %j as %s", (output, major) => {
    expect(javaMajor(output)).toBe(major);
  });
});

describe("without Java 17", () => {
  it.each([
    ["Java is missing and how to install it", withoutJava, /Java not found/],
    ["a Java 11 is too old", withOldJava, /Java too old: found Java 11, need 17/],
  ])("npm start says %s", async (_, PATH, phrase) => {
    await startRefuses({ PATH }, [phrase, ...JAVA_HOW_TO]);
  });

  it("npm test says Java is missing", async () => {
    const vitest = join(root, "node_modules/vitest/vitest.mjs");
    const args = [vitest, "run", "--project", "service", "tests/http/conditional-get.test.ts"];
    const env = { ...process.env, PATH: withoutJava };
    await expectOneCleanMessage([process.execPath, ...args], env, [
      /Java not found/,
      ...JAVA_HOW_TO,
    ]);
  }, 90_000); // a second vitest, with its config and setup: 13 s alone, more beside another suite

  it("npm run bench says Java is too old", async () => {
    const bench = [join(withOldJava, "npm"), "run", "--silent", "bench"];
    const env = { ...process.env, PATH: withOldJava };
    await expectOneCleanMessage(bench, env, [/Java too old/, ...JAVA_HOW_TO]);
  });
});

describe("npm start refuses, before starting anything, or stops DynamoDB Local again", () => {
  const holder: Server = createServer();
  beforeAll(() => new Promise<void>((resolve) => holder.listen(heldPort, "127.0.0.1", resolve)));
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  const held = String(heldPort);
  const folderOf = (file: string) => ({ DYNAMODB_DATA_DIR: join(file, "..") });
  const otherBuild = scratchFile(
    `data-other-build/${DATA_VERSION_FILE}`,
    "dynamodb_local_2023-12-14",
  );
  const damaged = scratchFile("data-damaged/shared-local-instance.db", "not an SQLite database\n");
  const asFile = { DYNAMODB_DATA_DIR: scratchFile("data-as-file", "") };

  // An incomplete setting's wording is its module's unit test; here, that npm start stops on it.
  it.each([
    [
      "an AUTH_* setting is incomplete",
      { AUTH_ISSUER_URL: "https://i.example" },
      ["AUTH_AUDIENCE"],
    ],
    [
      "AUTH_USER_POOL=true asks for a pool only a deployment has",
      { AUTH_USER_POOL: "true" },
      [
        "AUTH_USER_POOL=true creates a Cognito user pool when a stage is deployed",
        "AUTH_ISSUER_URL=",
      ],
    ],
    ["the API port is taken", { PORT: held }, [/Port \d+ is already in use/, "PORT="]],
    [
      "DynamoDB Local's port is taken",
      { DYNAMODB_PORT: held },
      ["already in use", "DYNAMODB_PORT="],
    ],
    ["the data folder is a file", asFile, ["is a file", "mv "]],
    [
      "another DynamoDB Local build wrote the data",
      folderOf(otherBuild),
      ["written by DynamoDB Local dynamodb_local_2023-12-14", "mv "],
    ],
    // DynamoDB Local starts on this one, and is stopped again.
    ["the data in the folder cannot be read", folderOf(damaged), ["cannot use the data in", "mv "]],
  ])("when %s", (_, settings, phrases) => startRefuses(settings, phrases), 180_000);

  it("when npm install has not run", async () => {
    const bare = join(scratch, "checkout-without-packages");
    // The settings' check reads the webhook address rule where the functions do (lib/).
    for (const path of ["scripts", "config", "lib", "package.json"]) {
      cpSync(join(root, path), join(bare, path), { recursive: true });
    }
    await startRefuses({}, [/not installed/, /npm install/], bare);
  });
});
