// What a running service of this API must do, as steps over real HTTP through the API's typed
// client, and the runner that prints one line each: a step passes with a short account of what it
// saw, fails an assertion saying what differed, or throws a Skip saying why it cannot run. The
// steps share a context: the clients, the token, every post made so far (which the smoke deletes
// whatever happened), and the signal, so the context doubles as the client calls' options.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { isDeepStrictEqual } from "node:util";
import { ApiError } from "../../../client/errors.mjs";
import { isPaused } from "../api.mjs";
import { ZonedClock } from "../zoned-time.mjs";

/**
 * @typedef {{ id: number, title: string, content: string, created_at: string | null, updated_at: string | null }} Post
 * @typedef {ReturnType<typeof import("../../../client/index.mjs").createBlogClient>} BlogClient
 * @typedef {{
 *   blog: BlogClient, anonymous: BlogClient, token?: string, zone: string, origin?: string,
 *   signal: AbortSignal, created: Set<number>, post?: Post, createdAtMs?: number, halt?: string,
 * }} SmokeContext
 */

/** A step that cannot run: what it needs did not happen. */
class Skip extends Error {}

const POST_KEYS = "content, created_at, id, title, updated_at";
/** How far a new post's timestamps may be from this machine's clock (clock skew, slow answers). */
const CLOCK_TOLERANCE_MS = 5 * 60_000;
/** Over the service's gzip threshold (1 KiB), so the list is worth compressing. */
const CONTENT = `A post made by the smoke check, deleted when it ends. ${"Lorem ipsum dolor sit amet. ".repeat(40)}`;

/** `got` is `want`; otherwise the step fails saying `what "got", not "want"`. */
const is = (/** @type {string} */ what, /** @type {unknown} */ got, /** @type {unknown} */ want) =>
  assert(got === want, `${what} ${JSON.stringify(got)}, not ${JSON.stringify(want)}`);

/** Remembers the post a create (its answer has a location) made, to delete it; returns the answer. */
function remember(/** @type {SmokeContext} */ ctx, /** @type {any} */ made) {
  const id = made && "location" in made ? made.post?.id : undefined;
  if (Number.isSafeInteger(id) && id > 0) ctx.created.add(id);
  return made;
}

const newPost = (/** @type {string} */ use) => ({ title: `Smoke check: ${use}`, content: CONTENT });

/** The post the create step made; a Skip when it did not pass. */
function createdPost(/** @type {SmokeContext} */ ctx) {
  if (!ctx.post) throw new Skip("the create step did not pass");
  return ctx.post;
}

/** @returns {Post} */
function expectPost(/** @type {any} */ value, /** @type {string} */ what) {
  const keys = value && typeof value === "object" ? Object.keys(value).sort().join(", ") : "";
  assert(keys === POST_KEYS, `${what}: keys ${keys || "none"}, not exactly ${POST_KEYS}`);
  const positive = Number.isSafeInteger(value.id) && value.id > 0;
  assert(positive, `${what}: id ${JSON.stringify(value.id)} is not a positive integer`);
  return value;
}

/**
 * The instant a timestamp names in the service's zone, near `near` (of a repeated hour's two, one
 * can be). @param {SmokeContext} ctx @param {unknown} value @param {string} name
 */
function instantOf(ctx, value, name, near = Date.now()) {
  const clock = new ZonedClock(ctx.zone);
  const instants = typeof value === "string" ? clock.instantsOf(value) : undefined;
  const form = "YYYY-DD-MM HH:MM:SS (day before month, 24-hour)";
  assert(instants, `${name} ${JSON.stringify(value)} is not ${form}`);
  const instant = instants.find((t) => Math.abs(t - near) <= CLOCK_TOLERANCE_MS);
  const now = `the time now in ${ctx.zone} (${clock.show(near)}): month before day, or another zone?`;
  assert(instant !== undefined, `${name} ${value} is not ${now}`);
  return instant;
}

/** An array, ascending by id, holding `post` as it is. @param {unknown} list @param {Post} post */
function listHolds(list, post, /** @type {string} */ what) {
  assert(Array.isArray(list), `${what}: not an array`);
  const ids = list.map((item) => item?.id);
  const ascending = ids.every((id, i) => i === 0 || id > ids[i - 1]);
  assert(ascending, `${what}: ids not ascending`);
  const found = list.find((item) => item?.id === post.id);
  assert(found, `${what}: post #${post.id} is missing`);
  assert(isDeepStrictEqual(expectPost(found, what), post), `${what}: post #${post.id} differs`);
  return `200, ${list.length} posts ascending by id, #${post.id} among them`;
}

/**
 * Whether the service refused `call` as it must, with status `want` and, when given, `detail`;
 * without `detail` the call may go through instead (then false).
 * @param {SmokeContext} ctx @param {Promise<any>} call @param {string} what @param {number} want
 * @param {string} [detail]
 */
async function refused(ctx, call, what, want, detail) {
  const error = await call.then(
    (made) => void remember(ctx, made),
    // A paused stage refuses everything alike: that is no answer to this check, and halts the run.
    (thrown) => (thrown instanceof ApiError && !isPaused(thrown) ? thrown : Promise.reject(thrown)),
  );
  assert(error || detail === undefined, `${what} succeeded`);
  if (!error) return false;
  assert(error.status === want, `${what} answered ${error.status}, not ${want}: ${error.detail}`);
  const body = /** @type {{ detail?: unknown }} */ (error.body);
  if (detail !== undefined) is(`${what}: detail`, body?.detail, detail);
  return true;
}

/**
 * ETag on a 200, then 304 for If-None-Match naming it.
 * @param {(ifNoneMatch?: string) => Promise<{ notModified: boolean, etag: string, response: Response }>} read
 */
async function conditional(read) {
  const first = await read();
  const what = `GET ${new URL(first.response.url).pathname}`;
  assert(!first.notModified, `${what} without If-None-Match answered 304`);
  assert(first.etag, `${what}: no ETag`);
  const again = await read(first.etag);
  is(`${what} with If-None-Match: ${first.etag} answered`, again.response.status, 304);
  return `ETag ${first.etag}; If-None-Match answers 304`;
}

/** The steps, in order: each returns what it saw. @type {Record<string, (ctx: SmokeContext) => Promise<string>>} */
const STEPS = {
  async auth(ctx) {
    const what = "a create without a token";
    const call = ctx.anonymous.createPost(newPost("without a token"), ctx);
    if (!(await refused(ctx, call, what, 401))) {
      assert(!ctx.token, `${what} answered 201: writes are open to anyone`);
      return "writes need no token here, and none was given";
    }
    if (!ctx.token) {
      ctx.halt = "writes need a token";
      assert.fail("writes need a token (401 without one): pass --token (npm run token prints one)");
    }
    return `${what} is refused with 401`;
  },
  async create(ctx) {
    const sent = newPost("create");
    const { post: body, location, response } = remember(ctx, await ctx.blog.createPost(sent, ctx));
    is("create answered", response.status, 201);
    const post = expectPost(body, "create");
    const same = post.title === sent.title && post.content === sent.content;
    assert(same, "create: the title or content answered is not the one sent");
    const path = `/api/post/${post.id}`;
    assert(location.endsWith(path), `create: Location ${JSON.stringify(location)}, not ${path}`);
    ctx.post = post;
    ctx.createdAtMs = Date.now();
    return `201, Location ${location}, exactly the five keys`;
  },
  async timestamps(ctx) {
    const { created_at, updated_at } = createdPost(ctx);
    instantOf(ctx, created_at, "created_at", ctx.createdAtMs);
    instantOf(ctx, updated_at, "updated_at", ctx.createdAtMs);
    is(`created_at ${created_at}, and on create updated_at`, updated_at, created_at);
    return `${created_at}: day before month, 24-hour, now in ${ctx.zone}; updated_at the same`;
  },
  async get(ctx) {
    const read = await ctx.blog.getPost(createdPost(ctx).id, ctx);
    assert(!read.notModified, "get without If-None-Match answered 304");
    const same = isDeepStrictEqual(expectPost(read.post, "get"), createdPost(ctx));
    assert(same, "get: the post answered differs from the one created");
    return `200, the post as created`;
  },
  async "get: ETag and 304"(ctx) {
    const { id } = createdPost(ctx);
    return conditional((ifNoneMatch) => ctx.blog.getPost(id, { signal: ctx.signal, ifNoneMatch }));
  },
  async list(ctx) {
    const post = createdPost(ctx);
    const list = await ctx.blog.listPosts(ctx);
    assert(!list.notModified, "list without If-None-Match answered 304");
    return listHolds(list.posts, post, "list");
  },
  async "list: ETag and 304"(ctx) {
    createdPost(ctx);
    return conditional((ifNoneMatch) => ctx.blog.listPosts({ signal: ctx.signal, ifNoneMatch }));
  },
  async gzip(ctx) {
    const post = createdPost(ctx);
    // fetch gunzips what it reads: the header says what came over the wire.
    const headers = { "accept-encoding": "gzip" };
    const { data, response } = await ctx.blog.api.GET("/api/post", { headers, signal: ctx.signal });
    is("list with Accept-Encoding: gzip answered", response.status, 200);
    is("list: Content-Encoding", response.headers.get("content-encoding"), "gzip");
    listHolds(data, post, "gunzipped list");
    return `list gzipped, ${JSON.stringify(data).length} bytes once gunzipped`;
  },
  async update(ctx) {
    const post = createdPost(ctx);
    // Timestamps have whole seconds: wait for the next one, so the refresh can show.
    await sleep(Math.max(0, 1_100 - (Date.now() - (ctx.createdAtMs ?? 0))));
    const title = "Smoke check: updated";
    const now = expectPost(await ctx.blog.updatePost(post.id, { title }, ctx), "update");
    is("update: title", now.title, title);
    assert(now.content === post.content, "update: content changed, though not sent");
    is("update: created_at", now.created_at, post.created_at);
    const before = instantOf(ctx, post.updated_at, "updated_at before", ctx.createdAtMs);
    const after = instantOf(ctx, now.updated_at, "updated_at after");
    const later = `update: updated_at ${now.updated_at} is not later than ${post.updated_at}`;
    assert(after > before, later);
    ctx.post = now;
    return `200, title changed, content and created_at kept, updated_at ${now.updated_at}`;
  },
  async "Idempotency-Key replay"(ctx) {
    const once = { signal: ctx.signal, idempotencyKey: randomUUID() };
    const sent = newPost("Idempotency-Key");
    const first = remember(ctx, await ctx.blog.createPost(sent, once)).post;
    const again = remember(ctx, await ctx.blog.createPost(sent, once));
    is("its retry answered", again.response.status, 201);
    const same = isDeepStrictEqual(expectPost(again.post, "retry"), expectPost(first, "create"));
    assert(same, `the retry made or answered another post: #${first.id}, then #${again.post.id}`);
    return `the retry answered post #${again.post.id} again, and made no other`;
  },
  async "bad input"(ctx) {
    // Sent past the client's types, as a client without them could.
    const noContent = ctx.blog.createPost(/** @type {never} */ ({ title: "No content" }), ctx);
    const missing = "Missing required fields: content";
    await refused(ctx, noContent, "a create without content", 400, missing);
    const abc = ctx.blog.getPost(/** @type {never} */ ("abc"), ctx);
    await refused(ctx, abc, "GET /api/post/abc", 400, "Blog post id must be a positive integer");
    return "a create without content and the id abc are 400, each naming the problem";
  },
  async delete(ctx) {
    const { id } = createdPost(ctx);
    is("delete answered", (await ctx.blog.deletePost(id, ctx)).response.status, 204);
    ctx.created.delete(id);
    is("a second delete answered", (await ctx.blog.deletePost(id, ctx)).response.status, 204);
    return "204, and 204 again for the second";
  },
  async "get after delete"(ctx) {
    const { id } = createdPost(ctx);
    if (ctx.created.has(id)) throw new Skip("the delete step did not pass");
    const detail = `Blog post #${id} not found`;
    await refused(ctx, ctx.blog.getPost(id, ctx), `GET /api/post/${id}`, 404, detail);
    return `404, "${detail}"`;
  },
  async CORS(ctx) {
    const origin = ctx.origin;
    if (!origin) throw new Skip("no --origin given");
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
    const from = `a preflight from ${origin}`;
    assert(preflight.status < 300, `${from} answered ${preflight.status}`);
    // Each allowed list names what was asked, or is `*`; header values are case-insensitive.
    const wanted = { origin: [origin.toLowerCase()], methods: ["post"], headers: asked };
    for (const [what, names] of Object.entries(wanted)) {
      const value = preflight.headers.get(`access-control-allow-${what}`);
      const allowed = (value ?? "").toLowerCase().split(/\s*,\s*/);
      const all = allowed.includes("*") || names.every((name) => allowed.includes(name));
      assert(all, `${from}: access-control-allow-${what} ${JSON.stringify(value)}`);
    }
    const headers = { origin };
    const { response } = await ctx.blog.api.GET("/api/post", { headers, signal: ctx.signal });
    const read = response.headers.get("access-control-allow-origin") !== null;
    assert(read, `a list from ${origin} has no Access-Control-Allow-Origin`);
    return `${origin} may send POST with ${asked.join(", ")}, and reads the answers`;
  },
};

/** Runs the steps in order, one line each (and one for those a halt skips); how many failed. */
export async function runSteps(/** @type {SmokeContext} */ ctx) {
  let failed = 0;
  const steps = Object.entries(STEPS);
  for (const [index, [name, step]] of steps.entries()) {
    if (ctx.signal.aborted) break;
    if (ctx.halt) {
      console.log(`skip  the ${steps.length - index} steps left: ${ctx.halt}`);
      break;
    }
    try {
      console.log(`ok    ${name}: ${await step(ctx)}`);
    } catch (error) {
      if (error instanceof Skip) console.log(`skip  ${name}: ${error.message}`);
      else if (!ctx.signal.aborted) {
        failed += 1;
        // An answer that broke a rule fails this step; no answer at all (nothing listening, not
        // this API) or a paused stage's fails every later one too. The client's message names
        // the request, and a paused stage's `detail` the limit.
        if (isPaused(error)) ctx.halt = "the stage is paused";
        else if (!(error instanceof assert.AssertionError || error instanceof ApiError)) {
          ctx.halt = "the service did not answer";
        }
        console.log(`FAIL  ${name}: ${/** @type {Error} */ (error).message}`);
      }
    }
  }
  return failed;
}
