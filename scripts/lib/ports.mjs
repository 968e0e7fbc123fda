// Loopback ports: one free port from the OS, and whether a given port can be listened on.
import { createServer } from "node:net";

/**
 * Listens on `port` (0: one the OS picks) and closes at once: the port, or the error that stopped
 * it. No `host`: the unspecified address, which also collides with 127.0.0.1 and ::1.
 * @returns {Promise<number | NodeJS.ErrnoException>}
 */
const tryListen = (/** @type {number} */ port, /** @type {string} */ host = "") =>
  new Promise((resolve) => {
    const server = createServer().unref().once("error", resolve);
    server.listen(port, host || undefined, () => {
      const address = /** @type {import("node:net").AddressInfo} */ (server.address());
      server.close(() => resolve(address.port));
    });
  });

/** A port on 127.0.0.1 that nothing listens on now, picked by the OS. */
export async function freePort() {
  const outcome = await tryListen(0, "127.0.0.1");
  if (typeof outcome !== "number") throw outcome;
  return outcome;
}

/** Why nothing could listen on `port` now (its error code, e.g. EADDRINUSE), or undefined if it is free. */
export async function portUnavailable(/** @type {number} */ port) {
  const outcome = await tryListen(port);
  return typeof outcome === "number" ? undefined : (outcome.code ?? String(outcome));
}
