// What a running service of this API must do, as steps over real HTTP: each passes with a short
// account of what it saw, or throws a Deviation saying what differed. The steps share a context:
// the service, the token, and every post made so far, which `cleanUp` deletes whatever happened.
import { randomUUID } from "node:crypto";
import { gunzipSync } from "node:zlib";
import {
  expectDetail,
  expectPost,
  expectStatus,
  fail,
  instantOf,
  jsonOf,
  listHolds,
  preview,
  samePost,
} from "./expect.mjs";
import { send } from "./http.mjs";

/**
 * @typedef {import("./expect.mjs").Post} Post
 * @typedef {{
 *   base: string, token?: string, zone: string, origin?: string, signal: AbortSignal,
 *   created: Set<number>, post?: Post, createdAtMs?: number, deleted?: boolean, halt?: string,
 * }} SmokeContext
 * @typedef {{
 *   name: string, needs?: "post" | "deleted", skipWhy?: (ctx: SmokeContext) => string | undefined,
 *   run: (ctx: SmokeContext) => Promise<string>,
 * }} Step
 */

/** Over the service's gzip threshold (1 KiB), so the list is worth compressing. */
const CONTENT = `A post made by the smoke check, deleted when it ends. ${"Lorem ipsum dolor sit amet. ".repeat(40)}`;

/**
 * One request, with the token unless `anonymous`.
 * @param {SmokeContext} ctx
 * @param {string} method
 * @param {string} path
 * @param {{ body?: unknown, headers?: Record<string, string>, anonymous?: boolean }} [options]
 */
function call(ctx, method, path, { body, headers = {}, anonymous = false } = {}) {
  const all = { ...headers };
  if (ctx.token && !anonymous) all.authorization = `Bearer ${ctx.token}`;
  const text = body === undefined ? undefined : JSON.stringify(body);
  return send(ctx.base, method, path, { headers: all, body: text, signal: ctx.signal });
}

/** Remembers the post an answer made, so cleanUp deletes it. */
function remember(/** @type {SmokeContext} */ ctx, /** @type {unknown} */ post) {
  const id = /** @type {{ id?: unknown }} */ (post)?.id;
  if (typeof id === "number" && Number.isSafeInteger(id) && id > 0) ctx.created.add(id);
}

const newPost = (/** @type {string} */ purpose) => ({
  title: `Smoke check: ${purpose}`,
  content: CONTENT,
});

/** @type {Step[]} */
export const STEPS = [
  {
    name: "auth",
    async run(ctx) {
      const answer = await call(ctx, "POST", "/api/post", {
        body: newPost("without a token"),
        anonymous: true,
      });
      if (answer.status === 201) {
        remember(ctx, jsonOf(answer, "create without a token"));
        if (ctx.token) fail("a create without a token answered 201: writes are open to anyone");
        return "writes need no token here, and none was given";
      }
      if (answer.status !== 401) {
        fail(
          `a create without a token answered ${answer.status}, not 401: ${preview(answer.body)}`,
        );
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
      const answer = await call(ctx, "POST", "/api/post", { body: sent });
      expectStatus(answer, 201, "create");
      const body = jsonOf(answer, "create");
      remember(ctx, body);
      const post = expectPost(body, "create");
      if (post.title !== sent.title || post.content !== sent.content) {
        fail("create: the title or content answered is not the one sent");
      }
      const location = String(answer.headers.location);
      if (!location.endsWith(`/api/post/${post.id}`)) {
        fail(
          `create: Location ${JSON.stringify(answer.headers.location)}, not /api/post/${post.id}`,
        );
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
      const answer = await call(ctx, "GET", `/api/post/${post.id}`);
      expectStatus(answer, 200, "get");
      if (!samePost(expectPost(jsonOf(answer, "get"), "get"), post)) {
        fail(`get: the post answered differs from the one created: ${preview(answer.body)}`);
      }
      return `200, the post as created`;
    },
  },
  {
    name: "get: ETag and 304",
    needs: "post",
    run: (ctx) => conditional(ctx, `/api/post/${ctx.post?.id}`),
  },
  {
    name: "list",
    needs: "post",
    async run(ctx) {
      const post = /** @type {Post} */ (ctx.post);
      const answer = await call(ctx, "GET", "/api/post");
      expectStatus(answer, 200, "list");
      return listHolds(jsonOf(answer, "list"), post, "list");
    },
  },
  { name: "list: ETag and 304", needs: "post", run: (ctx) => conditional(ctx, "/api/post") },
  {
    name: "gzip",
    needs: "post",
    async run(ctx) {
      const answer = await call(ctx, "GET", "/api/post", {
        headers: { "accept-encoding": "gzip" },
      });
      expectStatus(answer, 200, "list with Accept-Encoding: gzip");
      if (answer.headers["content-encoding"] !== "gzip") {
        fail(
          `list: Content-Encoding ${JSON.stringify(answer.headers["content-encoding"])}, not gzip`,
        );
      }
      let text;
      try {
        text = gunzipSync(answer.body);
      } catch {
        return fail("list: the body said gzip but does not gunzip");
      }
      listHolds(jsonOf(text, "gunzipped list"), /** @type {Post} */ (ctx.post), "gunzipped list");
      return `list gzipped: ${answer.body.length} bytes for ${text.length}`;
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
      const answer = await call(ctx, "PUT", `/api/post/${post.id}`, { body: { title } });
      expectStatus(answer, 200, "update");
      const updated = expectPost(jsonOf(answer, "update"), "update");
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
      const headers = { "idempotency-key": randomUUID() };
      const sent = newPost("Idempotency-Key");
      const first = await call(ctx, "POST", "/api/post", { body: sent, headers });
      expectStatus(first, 201, "create with an Idempotency-Key");
      const original = jsonOf(first, "create with an Idempotency-Key");
      remember(ctx, original);
      const again = await call(ctx, "POST", "/api/post", { body: sent, headers });
      expectStatus(again, 201, "its retry");
      const replay = jsonOf(again, "its retry");
      remember(ctx, replay);
      if (!samePost(expectPost(replay, "retry"), expectPost(original, "create"))) {
        fail(`the retry made or answered another post: #${original.id}, then #${replay.id}`);
      }
      return `the retry answered post #${replay.id} again, and made no other`;
    },
  },
  {
    name: "bad input",
    async run(ctx) {
      const missing = await call(ctx, "POST", "/api/post", { body: { title: "No content" } });
      if (missing.status === 201) remember(ctx, jsonOf(missing, "create without content"));
      expectDetail(missing, 400, "Missing required fields: content", "a create without content");
      const badId = await call(ctx, "GET", "/api/post/abc");
      expectDetail(badId, 400, "Blog post id must be a positive integer", "get /api/post/abc");
      return "a create without content and the id abc are 400, each naming the problem";
    },
  },
  {
    name: "delete",
    needs: "post",
    async run(ctx) {
      const id = /** @type {Post} */ (ctx.post).id;
      expectStatus(await call(ctx, "DELETE", `/api/post/${id}`), 204, "delete");
      ctx.created.delete(id);
      ctx.deleted = true;
      expectStatus(await call(ctx, "DELETE", `/api/post/${id}`), 204, "a second delete");
      return "204, and 204 again for the second";
    },
  },
  {
    name: "get after delete",
    needs: "deleted",
    async run(ctx) {
      const id = /** @type {Post} */ (ctx.post).id;
      const answer = await call(ctx, "GET", `/api/post/${id}`);
      expectDetail(answer, 404, `Blog post #${id} not found`, `GET /api/post/${id}`);
      return `404, "Blog post #${id} not found"`;
    },
  },
  {
    name: "CORS",
    skipWhy: (ctx) => (ctx.origin ? undefined : "no --origin given"),
    async run(ctx) {
      const origin = /** @type {string} */ (ctx.origin);
      const asked = ["authorization", "content-type", "idempotency-key"];
      const preflight = await call(ctx, "OPTIONS", "/api/post", {
        anonymous: true,
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": asked.join(","),
        },
      });
      if (preflight.status >= 300) fail(`a preflight from ${origin} answered ${preflight.status}`);
      const allowed = (/** @type {string} */ name) =>
        String(preflight.headers[name] ?? "")
          .toLowerCase()
          .split(/\s*,\s*/);
      const allowOrigin = preflight.headers["access-control-allow-origin"];
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
      const refused = asked.filter((name) => !headers.includes(name) && !headers.includes("*"));
      if (refused.length > 0) {
        fail(`a preflight from ${origin}: headers not allowed: ${refused.join(", ")}`);
      }
      const list = await call(ctx, "GET", "/api/post", { headers: { origin } });
      if (list.headers["access-control-allow-origin"] === undefined) {
        fail(`a list from ${origin} has no Access-Control-Allow-Origin`);
      }
      return `${origin} may send POST with ${asked.join(", ")}, and reads the answers`;
    },
  },
];

/** ETag on a 200, then 304 with no body for If-None-Match naming it. */
async function conditional(/** @type {SmokeContext} */ ctx, /** @type {string} */ path) {
  const first = await call(ctx, "GET", path);
  expectStatus(first, 200, `GET ${path}`);
  const etag = first.headers.etag;
  if (!etag) return fail(`GET ${path}: no ETag`);
  const again = await call(ctx, "GET", path, { headers: { "if-none-match": etag } });
  expectStatus(again, 304, `GET ${path} with If-None-Match: ${etag}`);
  if (again.body.length > 0) fail(`GET ${path}: the 304 has a body: ${preview(again.body)}`);
  return `ETag ${etag}; If-None-Match answers 304 with no body`;
}
