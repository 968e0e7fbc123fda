// A test that times out still stops what it started: a vitest run of a fixture whose one test
// starts DynamoDB Local, serverless-offline and the Lambda runtime client, then hangs past its
// limit, fails; and none of the three processes is left once that run has ended.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runCommand } from "../helpers/run-script.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const vitest = join(root, "node_modules/vitest/vitest.mjs");
const config = join(root, "tests/helpers/fixtures/timeout/vitest.config.ts");

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let scratch = "";
let leftover: number[] = [];
afterAll(async () => {
  // Should the check below fail, it still leaves nothing running.
  for (const pid of leftover) if (alive(pid)) process.kill(pid, "SIGKILL");
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("a test file that times out", () => {
  it("fails, and leaves no Java, serverless or runtime process behind", async () => {
    scratch = await mkdtemp(join(tmpdir(), "test-cleanup-"));
    const pidsFile = join(scratch, "pids.json");
    const env = { ...process.env, CLEANUP_PIDS_FILE: pidsFile };
    const run = await runCommand(
      process.execPath,
      [vitest, "run", "--config", config],
      env,
      200_000,
    );
    const output = `${run.stdout}${run.stderr}`;
    expect(run.code, output).toBe(1);
    expect(output).toContain("Test timed out in 1000ms");
    const pids = (leftover = JSON.parse(await readFile(pidsFile, "utf8")) as number[]);
    expect(pids).toHaveLength(3);
    for (const pid of pids) expect(pid).toBeGreaterThan(0);
    // Processes signalled on exit take a moment to be reaped.
    const deadline = Date.now() + 10_000;
    while (pids.some(alive) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(pids.filter(alive)).toEqual([]);
  }, 240_000);
});
