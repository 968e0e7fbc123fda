// Unit: CORS on the functions' answers (a REST API adds none to a Lambda proxy answer), and what a
// step reads of a REST event: its headers, and the path a created post's Location is built under.
import { describe, expect, it } from "vitest";
import { corsHeaders } from "../../../lib/http/cors.js";
import { httpHandler } from "../../../lib/http/handler.js";
import { created, ok } from "../../../lib/http/response.js";
import { apiEvent, invoke } from "../../helpers/events.js";
import { handlersOver, quietLogger } from "../../helpers/handlers.js";
import { InMemoryPostRepository } from "../../helpers/memory-repository.js";

const A = "https://a.example";
const B = "https://b.example";
const EXPOSED = "Location, ETag, Retry-After";

describe("corsHeaders", () => {
  it("adds nothing when CORS is off", () => {
    expect(corsHeaders([], A)).toEqual({});
  });

  it("names a listed origin, exposes Location and ETag, and varies by origin", () => {
    expect(corsHeaders([A, B], B)).toEqual({
      "access-control-allow-origin": B,
      "access-control-expose-headers": EXPOSED,
      vary: "origin",
    });
  });

  it.each([["https://evil.example"], [undefined], [`${A}.evil.example`]])(
    "names no origin for %s, which the browser then refuses, but still varies",
    (origin) => {
      expect(corsHeaders([A], origin)).toEqual({ vary: "origin" });
    },
  );

  it("allows any origin with *, the same answer for all", () => {
    expect(corsHeaders(["*"], "https://x.example")).toEqual({
      "access-control-allow-origin": "*",
      "access-control-expose-headers": EXPOSED,
    });
  });
});

describe("an answer's CORS headers", () => {
  const gzipped = apiEvent({ method: "GET", headers: { origin: A, "accept-encoding": "gzip" } });
  const large = async () => ok("x".repeat(2_000));

  it("come with the answer for a listed origin, one Vary naming origin and encoding", async () => {
    const response = await httpHandler(large, quietLogger, { corsOrigins: [A] })(gzipped);
    expect(response.isBase64Encoded).toBe(true);
    expect(response.headers).toMatchObject({
      "access-control-allow-origin": A,
      vary: "accept-encoding, origin",
    });
  });

  it("are absent for another origin", async () => {
    const handler = httpHandler(async () => ok([]), quietLogger, { corsOrigins: [A] });
    const response = await invoke(handler, { method: "GET", headers: { origin: B } });
    expect(response.headers["access-control-allow-origin"]).toBeUndefined();
    expect(response.headers.vary).toBe("origin");
  });

  it("are absent without CORS_ORIGINS: Vary names only the encoding, when gzipped", async () => {
    expect((await httpHandler(large, quietLogger)(gzipped)).headers?.vary).toBe("accept-encoding");
    const plain = httpHandler(async () => ok([]), quietLogger);
    const response = await invoke(plain, { method: "GET", headers: { origin: A } });
    expect(response.headers).not.toHaveProperty("vary");
  });

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

describe("what a step reads of a REST event", () => {
  /** The value the step reads of header `name`. */
  const seen = async (event: ReturnType<typeof apiEvent>, name: string) => {
    let value: string | undefined;
    await httpHandler(async (request) => {
      value = request.header(name);
      return ok([]);
    }, quietLogger)(event);
    return value;
  };

  it("a repeated header: its values joined, as a REST event keeps them", async () => {
    const event = apiEvent({ method: "GET", headers: { "if-none-match": '"b"' } });
    event.multiValueHeaders["if-none-match"] = ['"a"', '"b"'];
    expect(await seen(event, "If-None-Match")).toBe('"a", "b"');
  });

  it("a header from `headers` when there are no multi-value headers, by any case", async () => {
    const event = apiEvent({ method: "GET", headers: { "X-Thing": "one" } });
    event.multiValueHeaders = {};
    expect(await seen(event, "x-thing")).toBe("one");
    expect(await seen(event, "X-THING")).toBe("one");
    expect(await seen(event, "x-other")).toBeUndefined();
  });

  it("a header from `headers` when its multi-value entry has no values", async () => {
    const event = apiEvent({ method: "GET", headers: { "x-thing": "one" } });
    event.multiValueHeaders = { "x-thing": undefined as never };
    expect(await seen(event, "x-thing")).toBe("one");
  });

  const locate = httpHandler(async (request) => created({}, `${request.path}/7`), quietLogger);
  it.each([
    [
      "the path the client called, the stage's name first on the default URL",
      "",
      "/dev/api/post/7",
    ],
    ["without a trailing slash", "/blog/api/post/", "/blog/api/post/7"],
    ["without every trailing slash", "/dev/api/post//", "/dev/api/post/7"],
    ["the route's path without a request context", undefined, "/api/post/7"],
  ])("the path: %s", async (_label, path, location) => {
    const event = apiEvent({ method: "POST", body: {} });
    if (path === undefined) Object.assign(event, { requestContext: undefined });
    else if (path) event.requestContext.path = path;
    expect((await locate(event)).headers?.location).toBe(location);
  });
});
