// The local stack's children (DynamoDB Local, serverless-offline): each stopped by its pid (with
// its process group, if it has one of its own), and killed still if this process ends first.
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Watches a child. `stop()` sends SIGTERM, SIGKILL after 5 s, and resolves once it exited, to its
 * group if it was spawned `detached` (`group`); `ready(probe)` polls until `probe` answers true,
 * rejecting if the child exits first or time runs out (a throw from `probe` stops the wait).
 * @param {import("node:child_process").ChildProcess} child
 * @param {string} name
 */
export function supervise(child, name, group = true) {
  if (child.pid === undefined) throw new Error(`${name} could not be started`);
  const groupId = -child.pid;
  /** @type {Promise<number | null>} */
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const signal = (/** @type {NodeJS.Signals} */ signal) => {
    try {
      if (group) process.kill(groupId, signal);
      else child.kill(signal);
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
  return { child, pid: child.pid, exited, stop, ready };
}
