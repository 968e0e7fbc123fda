// What a running service of this API must do, as steps over real HTTP through the API's typed
// client: each passes with a short account of what it saw, or throws a Deviation saying what
// differed. The steps share a context: the client, the token, and every post made so far, which
// `cleanUp` deletes whatever happened.
import { randomUUID } from "node:crypto";
import { ApiError } from "../../../client/errors.mjs";
import { expectPost, fail, instantOf, listHolds, preview, refusal, samePost } from "./expect.mjs";

/**
 * @typedef {import("./expect.mjs").Post} Post
 * @typedef {ReturnType<typeof import("../../../client/index.mjs").createBlogClient>} BlogClient
 * @typedef {{
 *   base: string, blog: BlogClient, anonymous: BlogClient, token?: string, zone: string,
 *   origin?: string, signal: AbortSignal, created: Set<number>, post?: Post,
 *   createdAtMs?: number, deleted?: boolean, halt?: string,
 * }} SmokeContext
 * @typedef {{
 *   name: string, needs?: "post" | "deleted", skipWhy?: (ctx: SmokeContext) => string | undefined,
 *   run: (ctx: SmokeContext) => Promise<string>,
 * }} Step
 */

/** Over the service's gzip threshold (1 KiB), so the list is worth compressing. */
const CONTENT = `A post made by the smoke check, deleted when it ends. ${"Lorem ipsum dolor sit amet. ".repeat(40)}`;

/** Remembers the post an answer made, so cleanUp deletes it. */
function remember(/** @type {SmokeContext} */ ctx, /** @type {unknown} */ post) {
  const id = /** @type {{ id?: unknown }} */ (post)?.id;
  if (typeof id === "number" && Number.isSafeInteger(id) && id > 0) ctx.created.add(id);
}

const newPost = (/** @type {string} */ purpose) => ({
  title: `Smoke check: ${purpose}`,
  content: CONTENT,
});

/**
 * The service's refusal of `call`: the ApiError it failed with, or a Deviation when it succeeded
 * (`onSuccess` is told first, to remember a post it made).
 * @template T
 * @param {Promise<T>} call
 * @param {string} what
 * @param {(value: T) => void} [onSuccess]
 * @returns {Promise<ApiError>}
 */
async function refused(call, what, onSuccess) {
  /** @type {T} */
  let value;
  try {
    value = await call;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  onSuccess?.(value);
  return fail(`${what} succeeded`);
}

/** @type {Step[]} */
export const STEPS = [
  {
    name: "auth",
    async run(ctx) {
      /** @type {ApiError} */
      let error;
      try {
        const { post } = await ctx.anonymous.createPost(newPost("without a token"), {
          signal: ctx.signal,
        });
        remember(ctx, post);
        if (ctx.token) fail("a create without a token answered 201: writes are open to anyone");
        return "writes need no token here, and none was given";
      } catch (thrown) {
        if (!(thrown instanceof ApiError)) throw thrown;
        error = thrown;
      }
      if (error.status !== 401) {
        fail(`a create without a token answered ${error.status}, not 401: ${preview(error.body)}`);
      }
      if (!ctx.token) {
        ctx.halt = "writes need a token";
        fail("writes need a token (401 without one): pass --token (npm run token prints one)");
      }
      return "a create without a token is refused with 401";
    },
  },
  {
    name: "create",
    async run(ctx) {
      const sent = newPost("create");
      const {
        post: body,
        location,
        response,
      } = await ctx.blog.createPost(sent, { signal: ctx.signal });
      remember(ctx, body);
      if (response.status !== 201) fail(`create answered ${response.status}, not 201`);
      const post = expectPost(body, "create");
      if (post.title !== sent.title || post.content !== sent.content) {
        fail("create: the title or content answered is not the one sent");
      }
      if (!location.endsWith(`/api/post/${post.id}`)) {
        fail(`create: Location ${JSON.stringify(location)}, not /api/post/${post.id}`);
      }
      ctx.post = post;
      ctx.createdAtMs = Date.now();
      return `201, Location ${location}, exactly the five keys`;
    },
  },
  {
    name: "timestamps",
    needs: "post",
    async run(ctx) {
      const post = /** @type {Post} */ (ctx.post);
      instantOf(ctx.zone, post.created_at, "created_at", ctx.createdAtMs);
      instantOf(ctx.zone, post.updated_at, "updated_at", ctx.createdAtMs);
      if (post.created_at !== post.updated_at) {
        fail(`created_at ${post.created_at} and updated_at ${post.updated_at} differ on create`);
      }
      return `${post.created_at}: day before month, 24-hour, now in ${ctx.zone}; updated_at the same`;
    },
  },
  {
    name: "get",
    needs: "post",
    async run(ctx) {
      const post = /** @type {Post} */ (ctx.post);
      const read = await ctx.blog.getPost(post.id, { signal: ctx.signal });
      if (read.notModified) return fail("get without If-None-Match answered 304");
      if (!samePost(expectPost(read.post, "get"), post)) {
        fail(`get: the post answered differs from the one created: ${preview(read.post)}`);
      }
      return `200, the post as created`;
    },
  },
  {
    name: "get: ETag and 304",
    needs: "post",
    run: (ctx) =>
      conditional((ifNoneMatch) =>
        ctx.blog.getPost(/** @type {Post} */ (ctx.post).id, { signal: ctx.signal, ifNoneMatch }),
      ),
  },
  {
    name: "list",
    needs: "post",
    async run(ctx) {
      const list = await ctx.blog.listPosts({ signal: ctx.signal });
      if (list.notModified) return fail("list without If-None-Match answered 304");
      return listHolds(list.posts, /** @type {Post} */ (ctx.post), "list");
    },
  },
  {
    name: "list: ETag and 304",
    needs: "post",
    run: (ctx) =>
      conditional((ifNoneMatch) => ctx.blog.listPosts({ signal: ctx.signal, ifNoneMatch })),
  },
  {
    name: "gzip",
    needs: "post",
    async run(ctx) {
      // fetch gunzips what it reads: the header says what came over the wire.
      const { data, error, response } = await ctx.blog.api.GET("/api/post", {
        headers: { "accept-encoding": "gzip" },
        signal: ctx.signal,
      });
      if (response.status !== 200)
        fail(`list with Accept-Encoding: gzip answered ${response.status}: ${preview(error)}`);
      const encoding = response.headers.get("content-encoding");
      if (encoding !== "gzip") fail(`list: Content-Encoding ${JSON.stringify(encoding)}, not gzip`);
      listHolds(data, /** @type {Post} */ (ctx.post), "gunzipped list");
      return `list gzipped, ${JSON.stringify(data).length} bytes once gunzipped`;
    },
  },
  {
    name: "update",
    needs: "post",
    async run(ctx) {
      const post = /** @type {Post} */ (ctx.post);
      // Timestamps have whole seconds: wait for the next one, so the refresh can show.
      const wait = 1_100 - (Date.now() - (ctx.createdAtMs ?? 0));
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const title = "Smoke check: updated";
      const updated = expectPost(
        await ctx.blog.updatePost(post.id, { title }, { signal: ctx.signal }),
        "update",
      );
      if (updated.title !== title)
        fail(`update: title ${JSON.stringify(updated.title)} not changed`);
      if (updated.content !== post.content) fail("update: content changed, though not sent");
      if (updated.created_at !== post.created_at) {
        fail(`update: created_at moved from ${post.created_at} to ${updated.created_at}`);
      }
      const before = instantOf(ctx.zone, post.updated_at, "updated_at before", ctx.createdAtMs);
      const after = instantOf(ctx.zone, updated.updated_at, "updated_at after");
      if (!(after > before)) {
        fail(`update: updated_at ${updated.updated_at} is not later than ${post.updated_at}`);
      }
      ctx.post = updated;
      return `200, title changed, content and created_at kept, updated_at ${updated.updated_at}`;
    },
  },
  {
    name: "Idempotency-Key replay",
    async run(ctx) {
      const once = { signal: ctx.signal, idempotencyKey: randomUUID() };
      const sent = newPost("Idempotency-Key");
      const first = await ctx.blog.createPost(sent, once);
      remember(ctx, first.post);
      const again = await ctx.blog.createPost(sent, once);
      remember(ctx, again.post);
      if (again.response.status !== 201)
        fail(`its retry answered ${again.response.status}, not 201`);
      if (!samePost(expectPost(again.post, "retry"), expectPost(first.post, "create"))) {
        fail(`the retry made or answered another post: #${first.post.id}, then #${again.post.id}`);
      }
      return `the retry answered post #${again.post.id} again, and made no other`;
    },
  },
  {
    name: "bad input",
    async run(ctx) {
      // Sent past the client's types, as a client without them could.
      const noContent = /** @type {never} */ ({ title: "No content" });
      const missing = await refused(
        ctx.blog.createPost(noContent, { signal: ctx.signal }),
        "a create without content",
        ({ post }) => remember(ctx, post),
      );
      refusal(missing, 400, "Missing required fields: content", "a create without content");
      const abc = /** @type {never} */ ("abc");
      const badId = await refused(
        ctx.blog.getPost(abc, { signal: ctx.signal }),
        "GET /api/post/abc",
      );
      refusal(badId, 400, "Blog post id must be a positive integer", "GET /api/post/abc");
      return "a create without content and the id abc are 400, each naming the problem";
    },
  },
  {
    name: "delete",
    needs: "post",
    async run(ctx) {
      const id = /** @type {Post} */ (ctx.post).id;
      const first = await ctx.blog.deletePost(id, { signal: ctx.signal });
      if (first.response.status !== 204) fail(`delete answered ${first.response.status}, not 204`);
      ctx.created.delete(id);
      ctx.deleted = true;
      const second = await ctx.blog.deletePost(id, { signal: ctx.signal });
      if (second.response.status !== 204)
        fail(`a second delete answered ${second.response.status}, not 204`);
      return "204, and 204 again for the second";
    },
  },
  {
    name: "get after delete",
    needs: "deleted",
    async run(ctx) {
      const id = /** @type {Post} */ (ctx.post).id;
      const gone = await refused(
        ctx.blog.getPost(id, { signal: ctx.signal }),
        `GET /api/post/${id}`,
      );
      refusal(gone, 404, `Blog post #${id} not found`, `GET /api/post/${id}`);
      return `404, "Blog post #${id} not found"`;
    },
  },
  {
    name: "CORS",
    skipWhy: (ctx) => (ctx.origin ? undefined : "no --origin given"),
    async run(ctx) {
      const origin = /** @type {string} */ (ctx.origin);
      const asked = ["authorization", "content-type", "idempotency-key", "if-none-match"];
      // A preflight is the browser's question, not an operation of the API: plain fetch asks it.
      const preflight = await fetch(`${ctx.blog.baseUrl}/api/post`, {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": asked.join(","),
        },
        signal: ctx.signal,
      });
      await preflight.body?.cancel();
      if (preflight.status >= 300) fail(`a preflight from ${origin} answered ${preflight.status}`);
      const allowed = (/** @type {string} */ name) =>
        (preflight.headers.get(name) ?? "").toLowerCase().split(/\s*,\s*/);
      const allowOrigin = preflight.headers.get("access-control-allow-origin");
      if (allowOrigin !== origin && allowOrigin !== "*") {
        fail(
          `a preflight from ${origin}: Access-Control-Allow-Origin ${JSON.stringify(allowOrigin)}`,
        );
      }
      const methods = allowed("access-control-allow-methods");
      if (!methods.includes("post") && !methods.includes("*")) {
        fail(
          `a preflight from ${origin}: POST is not among the allowed methods ${methods.join(", ")}`,
        );
      }
      const headers = allowed("access-control-allow-headers");
      const refusedHeaders = asked.filter(
        (name) => !headers.includes(name) && !headers.includes("*"),
      );
      if (refusedHeaders.length > 0) {
        fail(`a preflight from ${origin}: headers not allowed: ${refusedHeaders.join(", ")}`);
      }
      const { response } = await ctx.blog.api.GET("/api/post", {
        headers: { origin },
        signal: ctx.signal,
      });
      if (response.headers.get("access-control-allow-origin") === null) {
        fail(`a list from ${origin} has no Access-Control-Allow-Origin`);
      }
      return `${origin} may send POST with ${asked.join(", ")}, and reads the answers`;
    },
  },
];

/**
 * ETag on a 200, then 304 for If-None-Match naming it.
 * @param {(ifNoneMatch?: string) => Promise<{ notModified: boolean, etag: string, response: Response }>} read
 */
async function conditional(read) {
  const first = await read();
  const what = `GET ${new URL(first.response.url).pathname}`;
  if (first.notModified) return fail(`${what} without If-None-Match answered 304`);
  const etag = first.etag;
  if (!etag) return fail(`${what}: no ETag`);
  const again = await read(etag);
  if (!again.notModified) {
    fail(`${what} with If-None-Match: ${etag} answered ${again.response.status}, not 304`);
  }
  return `ETag ${etag}; If-None-Match answers 304`;
}
