// The typed client (client/) against the service with writes behind a token: every operation,
// every error it can meet, a retried create, and failures that are not answers.
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiError, NotJsonError, UnreachableError, createBlogClient } from "../../client/index.mjs";
import { freePort } from "../../scripts/lib/ports.mjs";
import { LEASE_WAIT_MS, leaseOffline, type Offline } from "../helpers/offline.js";
import { token } from "../helpers/tokens.js";

let api: Offline;
let writer: string;
beforeAll(async () => {
  api = await leaseOffline("auth");
  writer = await token();
}, LEASE_WAIT_MS);
afterAll(async () => {
  await api?.stop();
});

/** A client of the service under test; retries without pauses, so a retried call costs no time. */
const client = (options: Partial<Parameters<typeof createBlogClient>[0]> = {}) =>
  createBlogClient({
    baseUrl: api.baseUrl,
    token: writer,
    retry: { baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1 },
    ...options,
  });

/** The error a call failed with; fails the test when the call succeeded. */
async function failure(call: Promise<unknown>): Promise<Error> {
  const outcome = await call.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome, "the call succeeded").toBeInstanceOf(Error);
  return outcome as Error;
}

describe("every operation", () => {
  it("creates, reads, lists, streams, changes and deletes a post, asking for the token each time", async () => {
    const asked = vi.fn(() => writer);
    const blog = client({ token: asked });
    const created = await blog.createPost({ title: "Typed", content: "From the client" });
    const { id } = created.post;
    expect(created.post).toMatchObject({ title: "Typed", content: "From the client" });
    expect([created.location, created.response.status]).toEqual([`/api/post/${id}`, 201]);
    const read = expect.objectContaining({ notModified: false, post: created.post });
    expect(await blog.getPost(id)).toEqual(read);

    const changed = await blog.updatePost(id, { title: "Typed, changed" });
    expect(changed).toMatchObject({ id, title: "Typed, changed" });

    const list = await blog.listPosts();
    if (list.notModified) throw new Error("a list without If-None-Match answered 304");
    expect(list.posts).toContainEqual(changed);
    expect(list.etag).toMatch(/^(W\/)?"/);
    // Unparsed, for a list too large to hold twice.
    const streamed = await blog.streamPosts();
    if (streamed.notModified) throw new Error("a list without If-None-Match answered 304");
    expect(JSON.parse(await new Response(streamed.body).text())).toContainEqual(changed);

    await blog.deletePost(id);
    await blog.deletePost(id); // deleting what is not there succeeds too
    const gone = await failure(blog.getPost(id));
    expect(gone).toBeInstanceOf(ApiError);
    expect(gone).toMatchObject({ status: 404, detail: expect.any(String) });
    // Once per call, so a renewed token is used.
    expect(asked).toHaveBeenCalledTimes(8);
  });
});

describe("a create sent again", () => {
  it("makes one post when its first answer was lost: the retry carries the same Idempotency-Key", async () => {
    const keys: (string | null)[] = [];
    let lost = 0;
    // The first answer never reaches the client.
    const losingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      keys.push(new Headers(init?.headers).get("idempotency-key"));
      if (lost++ === 0) {
        await response.body?.cancel();
        throw new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
      }
      return response;
    };
    const retries: string[] = [];
    const blog = client({ fetch: losingFetch, onRetry: ({ why }) => retries.push(why) });
    const title = `Once ${Date.now()}`;
    const { post, response } = await blog.createPost({ title, content: "c" });

    expect(retries).toEqual(["ECONNRESET"]);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[\x21-\x7e]{1,255}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(response.status).toBe(201);
    const stored = (await api.table.posts()).filter((item) => item.title === title);
    expect(stored.map((item) => Number(item.id))).toEqual([post.id]);
  });
});

// The client reads every refusal alike (a 404's ApiError: "every operation"); which call earns a
// 409 or 422 is the service's to prove (tests/http/api.test.ts, tests/unit/http).
describe("a refusal, as an ApiError with the service's detail or the gateway's message", () => {
  const post = { title: "t", content: "c" };
  it.each([
    [
      "400: a body the contract refuses (sent past the types)",
      () => client().createPost({ ...post, author: "x" } as never),
    ],
    ["400: an id that is not a positive integer", () => client().getPost(0)],
    ["401: a write without a token", () => client({ token: undefined }).createPost(post)],
    [
      "403: a token without the write scope",
      async () => client({ token: await token({ scope: "openid" }) }).deletePost(1),
    ],
    [
      "413: content over 300000 bytes",
      () => client().createPost({ title: "t", content: "é".repeat(150_001) }),
    ],
  ])("%s", async (what, call) => {
    const error = (await failure(call())) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(Number(what.slice(0, 3)));
    expect(error.detail).toEqual(expect.any(String));
    expect(error.message).toBe(
      `${error.method} ${error.url} answered ${error.status}: ${error.detail}`,
    );
  });
});

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((server) => new Promise((done) => server.close(done)))));

/** A server of the test's own on a loopback port, standing in for another service; its URL. */
async function localServer(answer: Parameters<typeof createServer>[1]) {
  const server = createServer(answer);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("failures that are not answers", () => {
  it("a service that cannot be reached is one UnreachableError, after the retries", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const retries: number[] = [];
    const blog = client({ baseUrl: closed, onRetry: ({ attempt }) => retries.push(attempt) });
    const error = await failure(blog.listPosts());
    expect(error).toBeInstanceOf(UnreachableError);
    expect(error.message).toBe(
      `GET ${closed}/api/post: the service cannot be reached (ECONNREFUSED)`,
    );
    expect(retries).toEqual([1, 2, 3, 4]);
  });

  it("an answer that is not this API's JSON is a NotJsonError, never a parse error", async () => {
    const url = await localServer((request, response) => {
      const json = request.url === "/api/post/2";
      response.writeHead(request.url === "/api/post/3" ? 502 : 200, {
        "content-type": json ? "application/json" : "text/html",
      });
      response.end(json ? "{not json" : "<html>a login page</html>");
    });
    const blog = client({ baseUrl: url, retry: { attempts: 1 } });
    for (const id of [1, 2, 3]) {
      const error = await failure(blog.getPost(id));
      expect(error).toBeInstanceOf(NotJsonError);
      // HTML is refused by its type, before its body; bad JSON once parsed, after its status.
      expect((error as NotJsonError).status).toBe([200, undefined, 502][id - 1]);
      expect(error.message).toMatch(
        new RegExp(`^GET ${url}/api/post/${id} answered (\\d+ )?with a body that is not`),
      );
    }
  });
});

describe("the time limit", () => {
  /** A server that sends its status and headers at once, then the post's body after `bodyAfterMs`. */
  function slowServer(headersAfterMs: number, bodyAfterMs: number) {
    const post = { id: 1, title: "t", content: "c", created_at: null, updated_at: null };
    return localServer((_request, response) => {
      setTimeout(() => {
        response.writeHead(200, { "content-type": "application/json" });
        response.flushHeaders();
        setTimeout(() => response.end(JSON.stringify(post)), bodyAfterMs);
      }, headersAfterMs);
    });
  }

  it("covers the wait for the status and headers, not the body: a list may stream for minutes", async () => {
    const baseUrl = await slowServer(0, 1_500);
    const read = await client({ baseUrl, timeoutMs: 1_000, retry: { attempts: 1 } }).getPost(1);
    expect(read.notModified ? undefined : read.post.id).toBe(1);
  });

  it("ends an attempt whose status does not come in time: UnreachableError, saying so", async () => {
    const baseUrl = await slowServer(400, 0);
    const blog = client({ baseUrl, timeoutMs: 100, retry: { attempts: 1 } });
    const error = await failure(blog.getPost(1));
    expect(error).toBeInstanceOf(UnreachableError);
    expect(error.message).toBe(
      `GET ${baseUrl}/api/post/1: the service cannot be reached (no answer within 0.1 s)`,
    );
  });
});

describe("docs/api.md's example (client/example.ts)", () => {
  const example = readFileSync(new URL("../../client/example.ts", import.meta.url), "utf8");

  it("is the page's TypeScript block, as it is", () => {
    const page = readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8");
    const block = /^## Use it from TypeScript$[\s\S]*?^```ts\n([\s\S]*?)^```$/m.exec(page)?.[1];
    expect(block).toBe(example);
  });

  it("runs against the service and prints what its comments say", async () => {
    const local = "http://localhost:3000";
    expect(example).toContain(`"${local}"`);
    const copy = join(await mkdtemp(join(tmpdir(), "client-example-")), "example.ts");
    await writeFile(
      copy,
      example
        .replace(`"${local}"`, JSON.stringify(api.baseUrl))
        .replace(
          '"./index.mjs"',
          JSON.stringify(fileURLToPath(new URL("../../client/index.mjs", import.meta.url))),
        ),
    );
    const printed: unknown[][] = [];
    const log = vi.spyOn(console, "log").mockImplementation((...args) => void printed.push(args));
    vi.stubEnv("API_TOKEN", writer);
    try {
      await import(copy);
    } finally {
      log.mockRestore();
      vi.unstubAllEnvs();
      await rm(dirname(copy), { recursive: true, force: true });
    }
    expect(printed).toEqual([[true], [404, expect.stringMatching(/^Blog post #\d+ not found$/)]]);
  });
});
