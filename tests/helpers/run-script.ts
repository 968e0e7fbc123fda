// Test helper: runs a command (a script of this repository, with node) to its end, and answers its
// exit code and what it printed, whether it succeeded or not.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The environment, the time limit (30 s by default) and the folder (the repository's root). */
type RunOptions = [env: NodeJS.ProcessEnv, timeoutMs?: number, cwd?: string];

/** `file` with `args` to its end; its code is null if it was killed. */
export function runCommand(
  file: string,
  args: string[],
  ...[env, timeout = 30_000, cwd = root]: RunOptions
) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { cwd, env, timeout }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `script`, a path from the folder, run with node. */
export const runScript = (script: string, args: string[], ...options: RunOptions) =>
  runCommand(process.execPath, [script, ...args], ...options);
