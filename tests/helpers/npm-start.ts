// `npm start` as a developer runs it, for the tests of what it serves: started on free ports over
// a test's data folder, and stopped with everything it started (its own process group).
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { freePort } from "../../scripts/lib/ports.mjs";
import { holdDistLock } from "./package.js";

const startScript = fileURLToPath(new URL("../../scripts/start.mjs", import.meta.url));
const STARTUP_MS = 150_000;

/** A running `npm start`: its API's base URL (`…/api/post`), its environment, what it printed. */
export type NpmStart = Awaited<ReturnType<typeof startNpmStart>>;

/**
 * Starts `npm start` on `dataDir`; resolves once its banner is printed. It builds into dist/,
 * which a packaging reads, so it holds the lock on dist/ until then, and no longer.
 */
export async function startNpmStart(dataDir: string, extra: Record<string, string> = {}) {
  const release = await holdDistLock();
  try {
    const port = await freePort();
    const env = {
      PORT: String(port),
      LAMBDA_PORT: String(await freePort()),
      DYNAMODB_PORT: String(await freePort()),
      DYNAMODB_DATA_DIR: dataDir,
      TIME_ZONE: "UTC",
      WEBHOOK_URL: "",
      WEBHOOK_SECRET: "",
      ...extra,
    };
    const child = spawn(process.execPath, [startScript], {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const stop = () => stopGroup(child);
    const deadline = Date.now() + STARTUP_MS;
    // The banner's last line (a function named publishEvents is listed before it).
    while (!/^Events: {3}/m.test(output)) {
      if (Date.now() > deadline || child.exitCode !== null) {
        await stop();
        throw new Error(`npm start: ${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return { base: `http://127.0.0.1:${port}/api/post`, env, output: () => output, stop };
  } finally {
    await release();
  }
}

/** Stops a process group: SIGTERM, then SIGKILL after 15 s. */
async function stopGroup(child: ChildProcess) {
  if (!child.pid || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid, "SIGTERM");
  const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}
