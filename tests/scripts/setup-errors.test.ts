// What a person sees when the machine or the workspace is not ready: one message saying what to
// do, a non-zero exit, no stack trace, and nothing left running.
import { execFile, execFileSync } from "node:child_process";
import { chmod, cp, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { type Server, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/ports.mjs";
import { DATA_VERSION_FILE, javaMajor } from "../../scripts/lib/setup-checks.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
let scratch = "";
/** A PATH with node, npm and sh (npm runs scripts with it) but no java. */
let withoutJava = "";
/** A PATH whose java reports version 11. */
let withOldJava = "";

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "blog-post-setup-"));
  withoutJava = join(scratch, "bin-without-java");
  withOldJava = join(scratch, "bin-with-java-11");
  const npm = await realpath(
    execFileSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).trim(),
  );
  for (const dir of [withoutJava, withOldJava]) {
    await mkdir(dir);
    await symlink(process.execPath, join(dir, "node"));
    await symlink(npm, join(dir, "npm"));
    await symlink("/bin/sh", join(dir, "sh"));
  }
  const fakeJava = join(withOldJava, "java");
  await writeFile(
    fakeJava,
    `#!/bin/sh\necho 'openjdk version "11.0.22" 2024-01-16' >&2\necho 'OpenJDK Runtime Environment' >&2\n`,
  );
  await chmod(fakeJava, 0o755);
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

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
  };
  const outcome = await run(process.execPath, [join(cwd, "scripts/start.mjs")], {
    ...process.env,
    ...settings,
    ...env,
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
      [vitest, "run", "--project", "service", "tests/http/cors.test.ts"],
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
  let holder: Server;
  let heldPort = 0;
  beforeAll(async () => {
    heldPort = await freePort();
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(heldPort, "127.0.0.1", resolve));
  });
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  it("when an AUTH_* setting is incomplete", async () => {
    const outcome = await start({ AUTH_ISSUER_URL: "https://issuer.example" });
    expectOneCleanMessage(outcome, /AUTH_AUDIENCE must name at least one audience/);
    expect(await running(outcome.settings.DYNAMODB_DATA_DIR)).toBe(false);
  });

  it("when AUTH_USER_POOL=true asks for a pool only a deployment has", async () => {
    const outcome = await start({ AUTH_USER_POOL: "true" });
    expectOneCleanMessage(
      outcome,
      /AUTH_USER_POOL=true creates a Cognito user pool when a stage is deployed/,
      /AUTH_ISSUER_URL=/,
    );
    expect(await running(outcome.settings.DYNAMODB_DATA_DIR)).toBe(false);
  });

  it("when the API port is taken", async () => {
    const outcome = await start({ PORT: String(heldPort) });
    expectOneCleanMessage(outcome, new RegExp(`Port ${heldPort} is already in use`), /PORT=/);
    expect(await running(outcome.settings.DYNAMODB_DATA_DIR)).toBe(false);
  });

  it("when the DynamoDB Local port is taken", async () => {
    const outcome = await start({ DYNAMODB_PORT: String(heldPort) });
    expectOneCleanMessage(outcome, /already in use/, /DYNAMODB_PORT=/);
  });

  it("when the data folder is a file", async () => {
    const file = join(scratch, "data-as-file");
    await writeFile(file, "not a folder");
    const outcome = await start({ DYNAMODB_DATA_DIR: file });
    expectOneCleanMessage(outcome, /is a file/, /mv /);
  });

  it("when another DynamoDB Local build wrote the data", async () => {
    const dir = join(scratch, "data-other-build");
    await mkdir(dir);
    await writeFile(join(dir, DATA_VERSION_FILE), "dynamodb_local_2023-12-14\n");
    const outcome = await start({ DYNAMODB_DATA_DIR: dir });
    expectOneCleanMessage(outcome, /written by DynamoDB Local dynamodb_local_2023-12-14/, /mv /);
  });

  it("when npm install has not run", async () => {
    const bare = join(scratch, "checkout-without-packages");
    await cp(join(root, "scripts"), join(bare, "scripts"), { recursive: true });
    await cp(join(root, "config"), join(bare, "config"), { recursive: true });
    // The settings' check reads the webhook address rule where the functions do.
    await cp(join(root, "lib"), join(bare, "lib"), { recursive: true });
    await cp(join(root, "package.json"), join(bare, "package.json"));
    const outcome = await start({}, bare);
    expectOneCleanMessage(outcome, /not installed/, /npm install/);
  });
});

describe("npm start stops DynamoDB Local again", () => {
  it("when the data in the folder cannot be read", async () => {
    const dir = join(scratch, "data-damaged");
    await mkdir(dir);
    await writeFile(join(dir, "shared-local-instance.db"), "this is not an SQLite database\n");
    const outcome = await start({ DYNAMODB_DATA_DIR: dir });
    expectOneCleanMessage(outcome, /cannot use the data in/, /mv /);
    expect(await running(dir)).toBe(false);
  }, 180_000);
});
