// Loopback ports: one free port from the OS, and whether a given port can be listened on.
import { createServer } from "node:net";

/**
 * Listens on `port` (0: one the OS picks) and closes at once: the port, or a rejection with the
 * error that stopped it. Without `host`, the unspecified address, which also collides with
 * 127.0.0.1 and ::1.
 * @param {number} port
 * @param {string} [host]
 * @returns {Promise<number>}
 */
export const tryListen = (port, host) =>
  new Promise((resolve, reject) => {
    const server = createServer().unref().once("error", reject);
    server.listen(port, host, () => {
      const address = /** @type {import("node:net").AddressInfo} */ (server.address());
      server.close(() => resolve(address.port));
    });
  });

/** A port on 127.0.0.1 that nothing listens on now, picked by the OS. */
export const freePort = () => tryListen(0, "127.0.0.1");
