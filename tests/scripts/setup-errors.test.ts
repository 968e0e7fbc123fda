// What a person sees when the machine or the workspace is not ready: one message saying what to
// do, a non-zero exit, no stack trace, and nothing left running.
import { execFile, execFileSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { symlinkSync, writeFileSync } from "node:fs";
import { type Server, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/ports.mjs";
import { DATA_VERSION_FILE, javaMajor } from "../../scripts/lib/setup-checks.mjs";

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

/** A PATH with node, npm and sh (npm runs scripts with it) but no java. */
const withoutJava = join(scratch, "bin-without-java");
/** A PATH whose java reports version 11. */
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

interface Outcome {
  code: number | null;
  output: string;
}

/**
 * Runs a command to its end and returns its exit code and everything it printed. At most 150 s:
 * Java on damaged data takes about 20 s on a quiet machine, several times that beside another suite.
 */
function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd = root) {
  return new Promise<Outcome>((resolve) => {
    execFile(command, args, { cwd, env, timeout: 150_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** `npm start` (scripts/start.mjs) on free ports, with a data folder of the test's own. */
async function start(env: NodeJS.ProcessEnv = {}, cwd = root) {
  const settings = {
    PORT: String(await freePort()),
    LAMBDA_PORT: String(await freePort()),
    DYNAMODB_PORT: String(await freePort()),
    DYNAMODB_DATA_DIR: join(scratch, `data-${Math.random().toString(36).slice(2)}`),
    ...env,
  };
  const outcome = await run(process.execPath, [join(cwd, "scripts/start.mjs")], {
    ...process.env,
    ...settings,
  });
  return { ...outcome, settings };
}

/** Whether any process still runs with this text in its command line. */
async function running(text: string) {
  const { output } = await run("ps", ["-eo", "args="], process.env);
  return output.split("\n").some((line) => line.includes(text));
}

function expectOneCleanMessage(outcome: Outcome, ...phrases: RegExp[]) {
  expect(outcome.code, outcome.output).not.toBe(0);
  expect(outcome.code, outcome.output).not.toBeNull();
  for (const phrase of phrases) expect(outcome.output).toMatch(phrase);
  // A stack trace has lines such as "    at startDynamoDbLocal (file:///…)".
  expect(outcome.output).not.toMatch(/^\s+at \S/m);
  expect(outcome.output).not.toMatch(/❯/);
}

const JAVA_HOW_TO = [
  /DynamoDB Local/,
  /apt-get install openjdk-17/,
  /brew install/,
  /winget install/,
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
  it("npm start says Java is missing and how to install it", async () => {
    const outcome = await start({ PATH: withoutJava });
    expectOneCleanMessage(outcome, /Java not found/, ...JAVA_HOW_TO);
    expect(await running(outcome.settings.DYNAMODB_DATA_DIR)).toBe(false);
  });

  it("npm start says a Java 11 is too old", async () => {
    const outcome = await start({ PATH: withOldJava });
    expectOneCleanMessage(outcome, /Java too old: found Java 11, need 17/, ...JAVA_HOW_TO);
  });

  it("npm test says Java is missing", async () => {
    const vitest = join(root, "node_modules/vitest/vitest.mjs");
    const outcome = await run(
      process.execPath,
      [vitest, "run", "--project", "service", "tests/http/conditional-get.test.ts"],
      { ...process.env, PATH: withoutJava },
    );
    expectOneCleanMessage(outcome, /Java not found/, ...JAVA_HOW_TO);
  }, 90_000); // a second vitest, with its config and setup: 13 s alone, more beside another suite

  it("npm run bench says Java is too old", async () => {
    const outcome = await run(join(withOldJava, "npm"), ["run", "--silent", "bench"], {
      ...process.env,
      PATH: withOldJava,
    });
    expectOneCleanMessage(outcome, /Java too old/, ...JAVA_HOW_TO);
  });
});

describe("npm start refuses, before starting anything", () => {
  const holder: Server = createServer();
  beforeAll(() => new Promise<void>((resolve) => holder.listen(heldPort, "127.0.0.1", resolve)));
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  const otherBuild = scratchFile(
    `data-other-build/${DATA_VERSION_FILE}`,
    "dynamodb_local_2023-12-14",
  );

  // An incomplete setting's wording is its module's unit test; here, that npm start stops on it.
  it.each([
    [
      "an AUTH_* setting is incomplete",
      { AUTH_ISSUER_URL: "https://issuer.example" },
      [/AUTH_AUDIENCE/],
    ],
    [
      "AUTH_USER_POOL=true asks for a pool only a deployment has",
      { AUTH_USER_POOL: "true" },
      [
        /AUTH_USER_POOL=true creates a Cognito user pool when a stage is deployed/,
        /AUTH_ISSUER_URL=/,
      ],
    ],
    ["the API port is taken", { PORT: String(heldPort) }, [/Port \d+ is already in use/, /PORT=/]],
    [
      "the DynamoDB Local port is taken",
      { DYNAMODB_PORT: String(heldPort) },
      [/already in use/, /DYNAMODB_PORT=/],
    ],
    [
      "the data folder is a file",
      { DYNAMODB_DATA_DIR: scratchFile("data-as-file", "") },
      [/is a file/, /mv /],
    ],
    [
      "another DynamoDB Local build wrote the data",
      { DYNAMODB_DATA_DIR: join(otherBuild, "..") },
      [/written by DynamoDB Local dynamodb_local_2023-12-14/, /mv /],
    ],
  ])("when %s", async (_, settings, phrases) => {
    const outcome = await start(settings);
    expectOneCleanMessage(outcome, ...phrases);
    expect(await running(outcome.settings.DYNAMODB_DATA_DIR)).toBe(false);
  });

  it("when npm install has not run", async () => {
    const bare = join(scratch, "checkout-without-packages");
    // The settings' check reads the webhook address rule where the functions do (lib/).
    for (const path of ["scripts", "config", "lib", "package.json"]) {
      cpSync(join(root, path), join(bare, path), { recursive: true });
    }
    expectOneCleanMessage(await start({}, bare), /not installed/, /npm install/);
  });
});

describe("npm start stops DynamoDB Local again", () => {
  it("when the data in the folder cannot be read", async () => {
    const data = scratchFile("data-damaged/shared-local-instance.db", "not an SQLite database\n");
    const outcome = await start({ DYNAMODB_DATA_DIR: join(data, "..") });
    expectOneCleanMessage(outcome, /cannot use the data in/, /mv /);
    expect(await running(join(data, ".."))).toBe(false);
  }, 180_000);
});
