// Loopback ports: one free port from the OS, and whether a given port can be listened on.
import { createServer } from "node:net";

/**
 * Tries to listen on `port` (or on a port the OS picks, for 0) and closes at once. Resolves to
 * the port, or to the error that stopped it (EADDRINUSE when something holds it).
 * @param {number} port
 * @param {string} [host] none: the unspecified address, which also collides with 127.0.0.1 and ::1
 * @returns {Promise<number | NodeJS.ErrnoException>}
 */
function tryListen(port, host) {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", resolve);
    server.listen(port, host, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : port));
    });
  });
}

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
