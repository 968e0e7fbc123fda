// Unit: one delivery: what counts as delivered, gone or failed, no redirect followed, nothing of
// the answer read, and no address but a public one on AWS (loopback only locally).
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { refusedUrl, sendWebhook } from "../../../lib/events/webhook-sender.js";

const secrets = [`whsec_${Buffer.alloc(24, 7).toString("base64")}`];
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A loopback server; returns its URL and how many requests reached it. */
async function serve(handle: Parameters<typeof createServer>[1]) {
  let hits = 0;
  const server = createServer((request, response) => {
    hits++;
    handle?.(request, response);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, hits: () => hits };
}

const send = (url: string, timeoutMs?: number) =>
  sendWebhook({ url, secrets }, "msg_post1v1", "{}", { local: true, timeoutMs });

describe("sendWebhook", () => {
  it.each([
    [204, "delivered"],
    [200, "delivered"],
    [410, "gone"],
    [500, "failed"],
    [429, "failed"],
    [404, "failed"],
  ])("takes %i as %s", async (status, result) => {
    const { url } = await serve((_, response) => response.writeHead(status).end());
    expect(await send(url)).toEqual({ result, detail: `answered ${status}` });
  });

  it("does not follow a redirect", async () => {
    const target = await serve((_, response) => response.writeHead(204).end());
    const { url } = await serve((_, response) =>
      response.writeHead(307, { location: target.url }).end(),
    );
    expect(await send(url)).toEqual({ result: "failed", detail: "answered 307" });
    expect(target.hits()).toBe(0);
  });

  it("reads nothing of a large answer but its status", async () => {
    let written = 0;
    const { url } = await serve((_, response) => {
      response.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024);
      const more = () => {
        while (written < 256 * 1024 * 1024 && response.write(chunk)) written += chunk.length;
      };
      response.on("drain", more);
      more();
    });
    expect(await send(url)).toEqual({ result: "delivered", detail: "answered 200" });
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it("fails a subscriber that does not answer in time, or refuses the connection", async () => {
    const { url } = await serve(() => undefined);
    expect(await send(url, 300)).toEqual({ result: "failed", detail: "no answer in 300 ms" });
    const closed = await serve(() => undefined);
    const port = new URL(closed.url).port;
    await new Promise((resolve) => servers.pop()?.close(resolve));
    expect((await send(`http://127.0.0.1:${port}/`)).result).toBe("failed");
  });

  it("connects to a name only through the address check, which lets loopback through locally", async () => {
    const { url, hits } = await serve((_, response) => response.writeHead(204).end());
    const named = url.replace("127.0.0.1", "localhost");
    expect(await send(named)).toEqual({ result: "delivered", detail: "answered 204" });
    expect(hits()).toBe(1);
  });

  it("never connects to loopback or a private address off `npm start`", async () => {
    const { url, hits } = await serve((_, response) => response.writeHead(204).end());
    const https = url.replace("http:", "https:");
    const outcomes = await Promise.all(
      [url, https, https.replace("127.0.0.1", "localhost")].map((target) =>
        sendWebhook({ url: target, secrets }, "msg_post1v1", "{}"),
      ),
    );
    expect(outcomes.map((outcome) => outcome.result)).toEqual(["failed", "failed", "failed"]);
    expect(outcomes[2]?.detail).toMatch(/localhost resolves to (127\.0\.0\.1|::1)/);
    expect(hits()).toBe(0);
  });
});

describe("refusedUrl", () => {
  const NOT_PUBLIC = "names an address that is not public";
  it.each([
    ["http://hooks.example.com/", "is not https"],
    ["https://127.0.0.1:9001/2018-06-01/runtime/invocation/next", NOT_PUBLIC],
    ["https://169.254.169.254/latest/meta-data/", NOT_PUBLIC],
    ["https://[::1]/", NOT_PUBLIC],
    ["https://10.1.2.3/", NOT_PUBLIC],
    ["https://user:pass@hooks.example.com/", "carries credentials"],
    ["hooks.example.com", "is not a URL"],
    ["https://hooks.example.com/blog", undefined],
    ["https://93.184.215.14/", undefined],
    ["http://127.0.0.1:4000/", undefined, "for npm start"],
    ["http://10.0.0.1:4000/", NOT_PUBLIC, "for npm start"],
  ])("%s %s %s", (url, refusal, local?: string) => {
    expect(refusedUrl(url, local !== undefined)).toBe(refusal);
  });
});
