// Unit: a free port for a process that listens later (scripts/lib/ports.mjs): one nothing holds,
// below the OS's ephemeral ranges for outgoing connections; a taken one is passed over.
import { once } from "node:events";
import { type Server, createServer } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { freePort } from "../../../scripts/lib/ports.mjs";

let held: Server | undefined;
afterEach(() => {
  vi.restoreAllMocks();
  held?.close();
  held = undefined;
});

/** Math.random's value that makes freePort try `port` first. */
const randomFor = (port: number) => (port - 20_000 + 0.5) / 12_000;

/** Listens on a port freePort can pick; that port. */
async function holdOne() {
  held = createServer();
  await once(held.listen(await freePort(), "127.0.0.1"), "listening");
  return (held.address() as { port: number }).port;
}

describe("freePort", () => {
  it("picks a port below the ephemeral ranges, and passes over one something listens on", async () => {
    const taken = await holdOne();
    expect(taken).toBeGreaterThanOrEqual(20_000);
    expect(taken).toBeLessThan(32_768);
    const other = await freePort();
    vi.spyOn(Math, "random")
      .mockReturnValueOnce(randomFor(taken))
      .mockReturnValueOnce(randomFor(other));
    expect(await freePort()).toBe(other);
  });

  it("gives up with the listen's error once every attempt found its port taken", async () => {
    const taken = await holdOne();
    vi.spyOn(Math, "random").mockReturnValue(randomFor(taken));
    await expect(freePort(3)).rejects.toMatchObject({ code: "EADDRINUSE" });
  });
});
