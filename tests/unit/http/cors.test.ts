// Unit: CORS on the functions' answers (a REST API adds none to a Lambda proxy answer) and the
// path a created post's Location is built under.
import { describe, expect, it } from "vitest";
import { corsHeaders } from "../../../lib/http/cors.js";
import { httpHandler } from "../../../lib/http/handler.js";
import { created, ok } from "../../../lib/http/response.js";
import { apiEvent, invoke } from "../../helpers/events.js";
import { handlersOver, quietLogger } from "../../helpers/handlers.js";
import { InMemoryPostRepository } from "../../helpers/memory-repository.js";

const A = "https://a.example";
const B = "https://b.example";

describe("corsHeaders", () => {
  it("adds nothing when CORS is off", () => {
    expect(corsHeaders([], A)).toEqual({});
  });

  it("names a listed origin, exposes Location and ETag, and varies by origin", () => {
    expect(corsHeaders([A, B], B)).toEqual({
      "access-control-allow-origin": B,
      "access-control-expose-headers": "Location, ETag, Retry-After",
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
      "access-control-expose-headers": "Location, ETag, Retry-After",
    });
  });
});

describe("an answer's CORS headers", () => {
  const handler = httpHandler(async () => ok([]), quietLogger, { corsOrigins: [A] });

  it("come with the answer for a listed origin, one Vary naming origin and encoding", async () => {
    const zipped = httpHandler(async () => ok("x".repeat(2_000)), quietLogger, {
      corsOrigins: [A],
    });
    const event = apiEvent({ method: "GET", headers: { origin: A, "accept-encoding": "gzip" } });
    const response = await zipped(event);
    expect(response.isBase64Encoded).toBe(true);
    expect(response.headers).toMatchObject({
      "access-control-allow-origin": A,
      vary: "accept-encoding, origin",
    });
  });

  it("are absent for another origin", async () => {
    const response = await invoke(handler, { method: "GET", headers: { origin: B } });
    expect(response.headers["access-control-allow-origin"]).toBeUndefined();
    expect(response.headers.vary).toBe("origin");
  });
});

describe("the request's path", () => {
  const echo = httpHandler(async (request) => created({}, `${request.path}/7`), quietLogger);

  it("is the path the client called, the stage's name first on the default URL", async () => {
    expect((await invoke(echo, { method: "POST", body: {} })).headers.location).toBe(
      "/dev/api/post/7",
    );
  });

  it("drops a trailing slash, and falls back to the route's path without a request context", async () => {
    const event = apiEvent({ method: "POST", body: {} });
    event.requestContext.path = "/blog/api/post/";
    expect((await echo(event)).headers?.location).toBe("/blog/api/post/7");
    const bare = { ...apiEvent({ method: "POST", body: {} }), requestContext: undefined };
    expect((await echo(bare as never)).headers?.location).toBe("/api/post/7");
  });
});

describe("a repeated header", () => {
  it("reads as its values joined, as a REST event keeps them", async () => {
    const seen: (string | undefined)[] = [];
    const handler = httpHandler(async (request) => {
      seen.push(request.header("If-None-Match"));
      return ok([]);
    }, quietLogger);
    const event = apiEvent({ method: "GET", headers: { "if-none-match": '"b"' } });
    event.multiValueHeaders["if-none-match"] = ['"a"', '"b"'];
    await handler(event);
    expect(seen).toEqual(['"a", "b"']);
  });
});

describe("every route", () => {
  it("answers a listed origin with CORS, and without CORS_ORIGINS adds no CORS header at all", async () => {
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
  });
});

describe("headers read from a REST event", () => {
  const seen = async (event: ReturnType<typeof apiEvent>, name: string) => {
    let value: string | undefined;
    await httpHandler(async (request) => {
      value = request.header(name);
      return ok([]);
    }, quietLogger)(event);
    return value;
  };

  it("fall back to `headers` when there are no multi-value headers, by any case", async () => {
    const event = apiEvent({ method: "GET", headers: { "X-Thing": "one" } });
    event.multiValueHeaders = {};
    expect(await seen(event, "x-thing")).toBe("one");
    expect(await seen(event, "X-THING")).toBe("one");
    expect(await seen(event, "x-other")).toBeUndefined();
  });

  it("skip a multi-value entry without values", async () => {
    const event = apiEvent({ method: "GET", headers: { "x-thing": "one" } });
    event.multiValueHeaders = { "x-thing": undefined as never };
    expect(await seen(event, "x-thing")).toBe("one");
  });

  it("drop every trailing slash of the path", async () => {
    const event = apiEvent({ method: "POST", body: {} });
    event.requestContext.path = "/dev/api/post//";
    const echo = httpHandler(async (request) => created({}, `${request.path}/7`), quietLogger);
    expect((await echo(event)).headers?.location).toBe("/dev/api/post/7");
  });
});

describe("an answer without CORS", () => {
  it("varies only by encoding when gzipped, and names no origin, by default", async () => {
    const zipped = httpHandler(async () => ok("x".repeat(2_000)), quietLogger);
    const response = await zipped(
      apiEvent({ method: "GET", headers: { origin: A, "accept-encoding": "gzip" } }),
    );
    expect(response.headers?.vary).toBe("accept-encoding");
    const plain = await invoke(
      httpHandler(async () => ok([]), quietLogger),
      {
        method: "GET",
        headers: { origin: A },
      },
    );
    expect(plain.headers).not.toHaveProperty("vary");
  });

  it("still answers a get with the post's JSON", async () => {
    const posts = new InMemoryPostRepository({ idempotency: false });
    const post = await posts.create({ title: "t", content: "c" });
    const response = await invoke(handlersOver(posts).get, { method: "GET", postId: post.id });
    expect(response.body).toMatchObject({ id: post.id, title: "t", content: "c" });
  });
});
