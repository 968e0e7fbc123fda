// Unit: the local stand-in for API Gateway's edge (scripts/lib/local-front.mjs), against a small
// server in this process that records what serverless-offline would be handed.
import { type IncomingHttpHeaders, type Server, createServer } from "node:http";
import { buffer } from "node:stream/consumers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  forwardedHeaders,
  gatewayAnswer,
  startLocalFront,
} from "../../../scripts/lib/local-front.mjs";

describe("what the gateway answers by itself", () => {
  const NONE: string[] = [];
  it.each([
    ...["PATCH /api/post/1", "HEAD /api/post", "OPTIONS /api/post"],
    ...["GET /api/other", "DELETE /api/post"],
  ])("%s is its 404, in the service's shape", (route) => {
    const [method = "", path = ""] = route.split(" ");
    const headers = { "content-type": "application/json", "x-content-type-options": "nosniff" };
    expect(gatewayAnswer({ method, path, size: 0 }, NONE)).toEqual({
      status: 404,
      body: '{"detail":"Not found: no such route"}',
      headers: { ...headers, "cache-control": "no-store" },
    });
  });

  it("leaves the five routes, and a preflight when CORS is on, to the functions", () => {
    const routes = ["GET /api/post", "POST /api/post", "GET /api/post/7", "PUT /api/post/7"];
    for (const route of [...routes, "DELETE /api/post/abc"]) {
      const [method = "", path = ""] = route.split(" ");
      expect(gatewayAnswer({ method, path, size: 10 }, NONE), route).toBeUndefined();
    }
    expect(gatewayAnswer({ method: "OPTIONS", path: "/api/post", size: 0 }, ["*"])).toBeUndefined();
  });

  it("refuses a payload over 10 MB with 413, and names an allowed origin", () => {
    const request = { method: "POST", path: "/api/post", size: 10 * 1024 * 1024 + 1 };
    const answer = gatewayAnswer(request, ["https://blog.example"]);
    expect(answer?.status).toBe(413);
    expect(answer?.headers["access-control-allow-origin"]).toBe("https://blog.example");
  });
});

describe("what serverless-offline is handed", () => {
  it.each([
    ["application/json", "application/octet-stream"],
    ["application/json; charset=utf-8", "application/octet-stream"],
    [undefined, "text/plain"],
    ["application/vnd.api+json", "text/plain"],
    ["application/x-www-form-urlencoded", "application/x-www-form-urlencoded"],
  ])("a body sent as %s goes as %s", (sent, handed) => {
    const headers = forwardedHeaders(sent ? { "content-type": sent } : {}, 4);
    expect(headers["content-type"]).toBe(handed);
  });

  it("drops Range, which the gateway ignores", () => {
    const sent = { range: "bytes=0-5", "if-range": "x", accept: "*/*" };
    expect(forwardedHeaders(sent, 0)).toEqual({ accept: "*/*" });
  });
});

describe("the front in front of a server", () => {
  let upstream: Server;
  const seen: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
  let front: { url: string; stop: () => Promise<void> };
  beforeAll(async () => {
    upstream = createServer(async (req, res) => {
      seen.push({ headers: req.headers, body: await buffer(req) });
      res.writeHead(200, {
        "content-type": "application/json",
        "access-control-allow-origin": req.headers.origin ?? "*",
        "access-control-allow-credentials": "true",
      });
      res.end("{}");
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const target = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
    front = await startLocalFront({ target, host: "127.0.0.1", corsOrigins: [] });
  });
  afterAll(async () => {
    await front.stop();
    await new Promise((resolve) => upstream.close(resolve));
  });

  it("passes a JSON body's exact bytes, bad UTF-8 included; no CORS header without CORS_ORIGINS", async () => {
    const bytes = Buffer.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const headers = { "content-type": "application/json", origin: "https://elsewhere.example" };
    const answer = await fetch(`${front.url}/api/post`, { method: "POST", headers, body: bytes });
    expect(answer.status).toBe(200);
    expect(seen.at(-1)?.body.equals(bytes)).toBe(true);
    expect(seen.at(-1)?.headers["content-type"]).toBe("application/octet-stream");
    const names = [...answer.headers.keys()];
    expect(names.filter((name) => name.startsWith("access-control"))).toEqual([]);
  });

  it("answers a method the API lacks itself, without passing it on", async () => {
    const before = seen.length;
    const answer = await fetch(`${front.url}/api/post/1`, { method: "PATCH" });
    const notFound = { detail: "Not found: no such route" };
    expect([answer.status, await answer.json(), seen.length]).toEqual([404, notFound, before]);
  });
});
