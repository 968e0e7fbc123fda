// The local stack's children (DynamoDB Local, serverless-offline): each in a process group of its
// own, stopped by its pid with everything it started, and killed still if this process ends first.
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Watches a child spawned with `detached: true`. `stop()` sends its group SIGTERM, SIGKILL after
 * 5 s, and resolves once it exited; `ready(probe)` polls until `probe` answers true, rejecting if
 * the child exits first or time runs out (a throw from `probe` stops the wait).
 * @param {import("node:child_process").ChildProcess} child
 * @param {string} name
 */
export function supervise(child, name) {
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name} could not be started`);
  /** @type {Promise<number | null>} */
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const signal = (/** @type {NodeJS.Signals} */ signal) => {
    try {
      process.kill(-pid, signal);
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== "ESRCH") throw error;
    }
  };
  const killOnExit = () => signal("SIGKILL");
  process.once("exit", killOnExit);
  /** @type {Promise<void> | undefined} */
  let stopping;
  const stop = () =>
    (stopping ??= (async () => {
      signal("SIGTERM");
      const timer = setTimeout(() => signal("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
      signal("SIGKILL"); // anything left in the group once its leader is gone
      process.off("exit", killOnExit);
    })());
  const ready = async (/** @type {() => Promise<boolean>} */ probe, timeoutMs = 60_000) => {
    for (const deadline = Date.now() + timeoutMs; ; await sleep(100)) {
      if (child.exitCode !== null || child.signalCode) throw new Error(`${name} exited early`);
      if (await probe()) return;
      if (Date.now() > deadline) throw new Error(`${name} did not answer in ${timeoutMs} ms`);
    }
  };
  return { child, pid, exited, stop, ready };
}
