// Unit: CORS on the functions' answers (a REST API adds none to a Lambda proxy answer).
import { describe, expect, it } from "vitest";
import { corsHeaders } from "../../../lib/http/cors.js";
import { httpHandler } from "../../../lib/http/handler.js";
import { ok } from "../../../lib/http/response.js";
import { apiEvent, invoke } from "../../helpers/events.js";
import { handlersOver, quietLogger } from "../../helpers/handlers.js";
import { InMemoryPostRepository } from "../../helpers/memory-repository.js";

const A = "https://a.example";
const B = "https://b.example";
const EXPOSED = "Location, ETag, Retry-After";
const allows = (origin: string) => ({
  "access-control-allow-origin": origin,
  "access-control-expose-headers": EXPOSED,
});

describe("corsHeaders", () => {
  // An origin not named is refused by the browser; the answer still varies by origin.
  it.each([
    ["nothing when CORS is off", [], A, {}],
    ["a listed origin, exposing Location and ETag", [A, B], B, { ...allows(B), vary: "origin" }],
    ["no other origin", [A], "https://evil.example", { vary: "origin" }],
    ["no origin when none is sent", [A], undefined, { vary: "origin" }],
    ["no origin that only starts as a listed one", [A], `${A}.evil.example`, { vary: "origin" }],
    ["any origin with *, the same answer for all", ["*"], "https://x.example", allows("*")],
  ])("names %s", (_label, origins, origin, expected) => {
    expect(corsHeaders(origins, origin)).toEqual(expected);
  });
});

describe("an answer's CORS headers", () => {
  const large = async () => ok("x".repeat(2_000));

  // One Vary names everything the answer varies by; an origin not listed gets only the Vary.
  it.each([
    [[A], A, true, A, "accept-encoding, origin"],
    [[A], B, false, undefined, "origin"],
    [[], A, true, undefined, "accept-encoding"],
  ])(
    "CORS_ORIGINS %j, origin %s, gzip %s: allows %s, varies by %j",
    async (corsOrigins, origin, gzip, allowed, vary) => {
      const headers = { origin, ...(gzip ? { "accept-encoding": "gzip" } : {}) };
      const handler = httpHandler(large, quietLogger, { corsOrigins });
      const response = await handler(apiEvent({ method: "GET", headers }));
      expect(response.isBase64Encoded ?? false).toBe(gzip);
      expect(response.headers?.["access-control-allow-origin"]).toBe(allowed);
      expect(response.headers?.vary).toBe(vary);
    },
  );

  it("come from every route for a listed origin, and from none without CORS_ORIGINS", async () => {
    const posts = new InMemoryPostRepository({ idempotency: false });
    const { id } = await posts.create({ title: "t", content: "c" });
    const calls = (api: ReturnType<typeof handlersOver>) =>
      [
        [api.list, { method: "GET" }],
        [api.get, { method: "GET", postId: id }],
        [api.create, { method: "POST", body: { title: "n", content: "c" } }],
        [api.update, { method: "PUT", postId: id, body: { title: "u" } }],
        [api.delete, { method: "DELETE", postId: id + 1 }],
      ] as const;
    for (const [handler, options] of calls(handlersOver(posts, quietLogger, [A]))) {
      const response = await invoke(handler, { ...options, headers: { origin: A } });
      expect(response.headers["access-control-allow-origin"], options.method).toBe(A);
    }
    for (const [handler, options] of calls(handlersOver(posts))) {
      const response = await invoke(handler, { ...options, headers: { origin: A } });
      const names = Object.keys(response.headers).join();
      expect(names, options.method).not.toMatch(/access-control/);
      expect(response.headers.vary, options.method).toBeUndefined();
    }
    const got = await invoke(handlersOver(posts).get, { method: "GET", postId: id });
    expect(got.body, "a get's answer without CORS").toMatchObject({ id, title: "u", content: "c" });
  });
});
