// Test helper: worker processes on one table, each bundled from a TypeScript entry and driven over
// IPC: "ready" once loaded, a plan sent as "go", one "done" report back.
import { type ChildProcess, fork } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { PostsTable } from "./db.js";

/** Bundles `entry` once; returns how to fork workers on `table`, run a plan on one, stop them all. */
export async function forkedWorkers<Plan extends { worker: number }, M extends { type: string }>(
  entry: URL,
  table: PostsTable,
  reportTimeoutMs: number,
) {
  const bundleDir = await mkdtemp(join(tmpdir(), "worker-"));
  const bundle = join(bundleDir, "worker.cjs");
  const children: ChildProcess[] = [];
  const entryPoints = [fileURLToPath(entry)];
  const options = {
    platform: "node",
    target: "node20",
    format: "cjs",
    logLevel: "warning",
  } as const;
  await build({ entryPoints, outfile: bundle, bundle: true, ...options });

  /** Forks one worker on the table and resolves once it has loaded. */
  const start = (): Promise<ChildProcess> => {
    const child = fork(bundle, [], {
      execArgv: [],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      env: {
        ...process.env,
        TABLE_NAME: table.tableName,
        AWS_ENDPOINT_URL_DYNAMODB: table.endpoint,
        LOG_LEVEL: "silent",
      },
    });
    children.push(child);
    return new Promise((resolve, reject) => {
      child.once("message", (message: M) =>
        message.type === "ready" ? resolve(child) : reject(new Error(JSON.stringify(message))),
      );
      child.once("exit", (code) => reject(new Error(`worker exited with ${code} before ready`)));
    });
  };

  /** Starts a worker's plan and resolves with its report. */
  const run = (child: ChildProcess, plan: Plan) =>
    new Promise<Extract<M, { type: "done" }>>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`worker ${plan.worker} sent no report within ${reportTimeoutMs} ms`));
      }, reportTimeoutMs);
      child.once("message", (message: M) => {
        clearTimeout(timer);
        if (message.type === "done") resolve(message as Extract<M, { type: "done" }>);
        else reject(new Error(`worker ${plan.worker}: ${JSON.stringify(message)}`));
      });
      // "close" comes after the IPC channel is drained, so a report sent before exit is never lost.
      child.once("close", (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`worker ${plan.worker} ended (${code ?? signal}) without a report`));
      });
      child.send({ type: "go", plan });
    });

  const stop = async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await rm(bundleDir, { recursive: true, force: true });
  };
  return { start, run, stop };
}
