// Test helper: runs a script of this repository with node, to its end, and answers its exit code
// and what it printed, whether it succeeded or not.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * `script` (a path from `cwd`, the repository's root by default) with `args` in `env`; at most
 * `timeoutMs`.
 */
export async function runScript(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
  cwd = root,
) {
  try {
    const run = promisify(execFile)(process.execPath, [script, ...args], {
      cwd,
      env,
      timeout: timeoutMs,
    });
    const { stdout, stderr } = await run;
    return { code: 0 as number | undefined, stdout, stderr };
  } catch (error) {
    const {
      code,
      stdout = "",
      stderr = "",
    } = error as {
      code?: number;
      stdout?: string;
      stderr?: string;
    };
    return { code, stdout, stderr };
  }
}
