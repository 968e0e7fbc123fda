// Loopback ports: a free one to listen on later, and whether a given port can be listened on.
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

/**
 * A port on 127.0.0.1 that nothing listens on now, for a process that will listen on it later.
 * Picked at random below the ephemeral ranges (32768 up on Linux, 49152 up on macOS and Windows),
 * where the OS never hands out the local port of an outgoing connection: a port the OS picked
 * could be taken by a connection to DynamoDB Local before the process got to listen on it.
 * @returns {Promise<number>}
 */
export async function freePort(attempts = 20) {
  const port = 20_000 + Math.floor(Math.random() * 12_000);
  return tryListen(port, "127.0.0.1").catch((error) => {
    if (attempts > 1) return freePort(attempts - 1);
    throw error;
  });
}
