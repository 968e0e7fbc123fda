// Unit: the five handlers over an in-memory repository, where DynamoDB's behaviour is not in
// question: path ids, Idempotency-Key statuses, a list past 6 MB answered buffered in full (as
// serverless-offline serves it), and the list prepared at init.
import { gunzipSync } from "node:zlib";
import type { APIGatewayProxyResult } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { preparedListHandler } from "../../../lib/app/runtime.js";
import { listPosts } from "../../../lib/http/routes.js";
import { apiEvent, invoke } from "../../helpers/events.js";
import { handlersOver, quietLogger } from "../../helpers/handlers.js";
import { InMemoryPostRepository } from "../../helpers/memory-repository.js";

const unzip = (answer: APIGatewayProxyResult) =>
  gunzipSync(Buffer.from(answer.body, "base64")).toString();

describe("path ids", () => {
  it.each(["0", "-1", "1.5", "01", "1e3", "abc", "9007199254740992", "%20"])(
    "%j is 400 on get, update and delete, with no write",
    async (postId) => {
      const posts = new InMemoryPostRepository();
      const api = handlersOver(posts);
      await posts.create({ title: "t", content: "c" });
      const before = posts.snapshot();
      const expected = { status: 400, body: { detail: expect.any(String) } };
      expect(await invoke(api.get, { method: "GET", postId })).toMatchObject(expected);
      const update = await invoke(api.update, { method: "PUT", postId, body: { title: "x" } });
      expect(update).toMatchObject(expected);
      expect(await invoke(api.delete, { method: "DELETE", postId })).toMatchObject(expected);
      expect(posts.snapshot()).toEqual(before);
    },
  );
});

describe("Idempotency-Key", () => {
  const request = (key: string, body: unknown = { title: "t", content: "c" }) => ({
    method: "POST" as const,
    body,
    headers: { "idempotency-key": key },
  });

  it("replays the first outcome and refuses another body with 422", async () => {
    const posts = new InMemoryPostRepository();
    const { create } = handlersOver(posts);
    const first = await invoke(create, request("k1"));
    const again = await invoke(create, request("k1", { content: "c", title: "t" }));
    expect(first.status).toBe(201);
    expect(again).toEqual(first);
    expect(await invoke(create, request("k1", { title: "other", content: "c" }))).toMatchObject({
      status: 422,
      body: { detail: "Idempotency-Key was already used with a different request body" },
    });
    expect(posts.snapshot()).toHaveLength(1);
  });

  it.each([
    ["without the keys table", false, "k2", "is not enabled on this deployment"],
    ["for a bad key", true, "a b", "must be 1 to 255 visible ASCII characters"],
  ])("is 400 %s, and nothing is written", async (_label, idempotency, key, detail) => {
    const posts = new InMemoryPostRepository({ idempotency });
    const response = await invoke(handlersOver(posts).create, request(key));
    expect(response).toMatchObject({ status: 400, body: { detail: `Idempotency-Key ${detail}` } });
    expect(posts.snapshot()).toEqual([]);
  });
});

describe("a list larger than Lambda's 6 MB buffered response limit", () => {
  it("arrives whole, buffered, gzipped when the client accepts gzip and plain when not", async () => {
    const posts = new InMemoryPostRepository();
    const content = "lorem ipsum dolor sit amet ".repeat(400); // ~10.8 KB
    for (let i = 0; i < 640; i++) await posts.create({ title: `p${i}`, content });
    const { list } = handlersOver(posts);
    const zipped = await list(apiEvent({ method: "GET", headers: { "accept-encoding": "gzip" } }));
    expect(zipped).toMatchObject({ statusCode: 200, isBase64Encoded: true });
    expect(JSON.parse(unzip(zipped))).toHaveLength(640);
    const plain = await invoke(list, { method: "GET" });
    expect(plain).toMatchObject({ status: 200, body: { length: 640 } });
  });
});

describe("each operation's answer", () => {
  const stored = async () => {
    const posts = new InMemoryPostRepository({ idempotency: false });
    const post = await posts.create({ title: "t", content: "c" });
    return { posts, api: handlersOver(posts), id: post.id };
  };

  it("create: without a key needs no keys table, 201 with the post and where it lives; 409 for an id taken", async () => {
    const { api, id } = await stored();
    const create = (body: object) => invoke(api.create, { method: "POST", body });
    expect(await create({ title: "new", content: "c" })).toMatchObject({
      status: 201,
      headers: { location: "/dev/api/post/2" },
      body: { id: 2, title: "new", content: "c" },
    });
    const taken = await create({ id, title: "t", content: "c" });
    expect(taken).toMatchObject({
      status: 409,
      body: { detail: `Blog post #${id} already exists` },
    });
  });

  it("get of a post that is not there: 404 naming it", async () => {
    const { api } = await stored();
    expect(await invoke(api.get, { method: "GET", postId: 99 })).toEqual({
      status: 404,
      headers: expect.any(Object),
      body: { detail: "Blog post #99 not found" },
    });
  });

  it("get and list answer 304 when If-None-Match names what they would send", async () => {
    const { api, id } = await stored();
    for (const [handler, postId] of [
      [api.get, id],
      [api.list, undefined],
    ] as const) {
      const etag = String((await invoke(handler, { method: "GET", postId })).headers.etag);
      const headers = { "if-none-match": etag };
      const again = await handler(apiEvent({ method: "GET", postId, headers }));
      expect(again).toMatchObject({ statusCode: 304, headers: { etag } });
    }
  });

  it("delete: 204 whose detail names the post", async () => {
    const { api, id, posts } = await stored();
    const deleted = await invoke(api.delete, { method: "DELETE", postId: id });
    expect(deleted).toMatchObject({ status: 204, body: { detail: `Blog post #${id} deleted` } });
    expect(posts.snapshot()).toEqual([]);
  });
});

describe("the list prepared at init (preparedListHandler)", () => {
  const gzipped = apiEvent({ method: "GET", headers: { "accept-encoding": "gzip" } });
  const runtime = (posts: InMemoryPostRepository) => ({
    posts,
    logger: quietLogger,
    corsOrigins: [],
  });

  it("reads the list once, and the first list answers the same body, gzipped", async () => {
    const posts = new InMemoryPostRepository();
    for (let i = 0; i < 30; i++) await posts.create({ title: `t${i}`, content: "c".repeat(100) });
    let reads = 0;
    const counted = Object.assign(Object.create(posts), {
      listJson: () => (reads++, posts.listJson()),
    }) as InMemoryPostRepository;
    const list = await preparedListHandler(runtime(counted));
    expect(reads).toBe(1);
    const answer = await list(gzipped);
    expect(answer.isBase64Encoded).toBe(true);
    expect(JSON.parse(unzip(answer))).toHaveLength(30);
  });

  /** A repository whose lists carry one (forged) tag over a new body each time. */
  const forged = (bodies: string[]) => {
    let call = 0;
    return Object.assign(new InMemoryPostRepository(), {
      listJson: async () => ({
        json: [bodies[call] ?? ""],
        bytes: Buffer.byteLength(bodies[call++] ?? ""),
        etag: '"prepared-at-init"',
      }),
    });
  };
  const bodies = ["first", "second", "third"].map((title) =>
    JSON.stringify(Array.from({ length: 40 }, (_, id) => ({ id, title }))),
  );

  it("compresses the list at init into the handler's own memo, which no other handler reads", async () => {
    // Bodies under one tag: the answers show which one was compressed, and when.
    const posts = forged(bodies);
    const list = await preparedListHandler(runtime(posts));
    expect(unzip(await list(gzipped))).toBe(bodies[0]);
    expect(unzip(await listPosts(posts, quietLogger)(gzipped))).toBe(bodies[2]);
  });
});
