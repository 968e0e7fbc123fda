// What a running service of this API must do, as steps over real HTTP through the API's typed
// client, and the runner that prints one line each: a step passes with a short account of what it
// saw, throws a Deviation saying what differed, or a Skip saying why it cannot run. The steps
// share a context: the clients, the token, every post made so far (which the smoke deletes
// whatever happened), and the signal, so the context doubles as the client calls' options.
import { randomUUID } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { ApiError } from "../../../client/errors.mjs";
import { ZonedClock } from "../zoned-time.mjs";

/**
 * @typedef {{ id: number, title: string, content: string, created_at: string | null, updated_at: string | null }} Post
 * @typedef {ReturnType<typeof import("../../../client/index.mjs").createBlogClient>} BlogClient
 * @typedef {{
 *   blog: BlogClient, anonymous: BlogClient, token?: string, zone: string, origin?: string,
 *   signal: AbortSignal, created: Set<number>, post?: Post, createdAtMs?: number,
 *   deleted?: boolean, halt?: string,
 * }} SmokeContext
 */

/** A rule the service broke. */
class Deviation extends Error {}
/** A step that cannot run: what it needs did not happen. */
class Skip extends Error {}

const POST_KEYS = "content, created_at, id, title, updated_at";
/** How far a new post's timestamps may be from this machine's clock (clock skew, slow answers). */
const CLOCK_TOLERANCE_MS = 5 * 60_000;
/** Over the service's gzip threshold (1 KiB), so the list is worth compressing. */
const CONTENT = `A post made by the smoke check, deleted when it ends. ${"Lorem ipsum dolor sit amet. ".repeat(40)}`;

/** @param {unknown} ok @param {string} message @returns {asserts ok} */
function must(ok, message) {
  if (!ok) throw new Deviation(message);
}

/** `got` is `want`; otherwise the step fails saying `what "got", not "want"`. */
const is = (/** @type {string} */ what, /** @type {unknown} */ got, /** @type {unknown} */ want) =>
  must(got === want, `${what} ${JSON.stringify(got)}, not ${JSON.stringify(want)}`);

/** A body, short, for a message. */
function preview(/** @type {unknown} */ body) {
  const text = typeof body === "string" ? body : (JSON.stringify(body) ?? String(body));
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
}

/** Remembers the post a create made, so that the smoke deletes it; returns the create's answer. */
function remember(/** @type {SmokeContext} */ ctx, /** @type {any} */ made) {
  if (Number.isSafeInteger(made?.post?.id) && made.post.id > 0) ctx.created.add(made.post.id);
  return made;
}

/** The ApiError `call` was refused with, or undefined when it went through; else it throws. */
async function refused(/** @type {SmokeContext} */ ctx, /** @type {Promise<unknown>} */ call) {
  try {
    remember(ctx, await call);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
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
  must(keys === POST_KEYS, `${what}: keys ${keys || "none"}, not exactly ${POST_KEYS}`);
  const positive = Number.isSafeInteger(value.id) && value.id > 0;
  must(positive, `${what}: id ${JSON.stringify(value.id)} is not a positive integer`);
  return value;
}

/**
 * The instant a timestamp names in the service's zone, near `near`; a Deviation naming the rule
 * when it is not `YYYY-DD-MM HH:MM:SS` or not near (of a repeated hour's two, one can be).
 * @param {SmokeContext} ctx @param {unknown} value @param {string} name
 */
function instantOf(ctx, value, name, near = Date.now()) {
  const clock = new ZonedClock(ctx.zone);
  const instants = typeof value === "string" ? clock.instantsOf(value) : undefined;
  const form = "YYYY-DD-MM HH:MM:SS (day before month, 24-hour)";
  must(instants, `${name} ${JSON.stringify(value)} is not ${form}`);
  const instant = instants.find((t) => Math.abs(t - near) <= CLOCK_TOLERANCE_MS);
  const now = `the time now in ${ctx.zone} (${clock.show(near)}): month before day, or another zone?`;
  must(instant !== undefined, `${name} ${value} is not ${now}`);
  return instant;
}

/**
 * The list's checks: an array, ascending by id, holding `post` as it is.
 * @param {unknown} list @param {Post} post @param {string} what
 */
function listHolds(list, post, what) {
  must(Array.isArray(list), `${what}: not an array`);
  const ids = list.map((item) => item?.id);
  const ascending = ids.every((id, i) => i === 0 || id > ids[i - 1]);
  must(ascending, `${what}: ids not ascending`);
  const found = list.find((item) => item?.id === post.id);
  must(found, `${what}: post #${post.id} is missing`);
  must(isDeepStrictEqual(expectPost(found, what), post), `${what}: post #${post.id} differs`);
  return `200, ${list.length} posts ascending by id, #${post.id} among them`;
}

/**
 * The service refused `call` as it must: this status, and this `detail` in its body.
 * @param {SmokeContext} ctx @param {Promise<any>} call @param {string} what
 * @param {number} want @param {string} detail
 */
async function refusal(ctx, call, what, want, detail) {
  const error = await refused(ctx, call);
  must(error, `${what} succeeded`);
  const answered = `${what} answered ${error.status}`;
  must(error.status === want, `${answered}, not ${want}: ${preview(error.body)}`);
  is(`${what}: detail`, /** @type {{ detail?: unknown }} */ (error.body)?.detail, detail);
}

/**
 * ETag on a 200, then 304 for If-None-Match naming it.
 * @param {(ifNoneMatch?: string) => Promise<{ notModified: boolean, etag: string, response: Response }>} read
 */
async function conditional(read) {
  const first = await read();
  const what = `GET ${new URL(first.response.url).pathname}`;
  must(!first.notModified, `${what} without If-None-Match answered 304`);
  must(first.etag, `${what}: no ETag`);
  const again = await read(first.etag);
  is(`${what} with If-None-Match: ${first.etag} answered`, again.response.status, 304);
  return `ETag ${first.etag}; If-None-Match answers 304`;
}

/** The steps, in order: each returns what it saw. @type {Record<string, (ctx: SmokeContext) => Promise<string>>} */
const STEPS = {
  async auth(ctx) {
    const error = await refused(ctx, ctx.anonymous.createPost(newPost("without a token"), ctx));
    if (!error) {
      must(!ctx.token, "a create without a token answered 201: writes are open to anyone");
      return "writes need no token here, and none was given";
    }
    const answered = `a create without a token answered ${error.status}`;
    must(error.status === 401, `${answered}, not 401: ${preview(error.body)}`);
    if (!ctx.token) ctx.halt = "writes need a token";
    must(
      ctx.token,
      "writes need a token (401 without one): pass --token (npm run token prints one)",
    );
    return "a create without a token is refused with 401";
  },
  async create(ctx) {
    const sent = newPost("create");
    const { post: body, location, response } = remember(ctx, await ctx.blog.createPost(sent, ctx));
    is("create answered", response.status, 201);
    const post = expectPost(body, "create");
    const same = post.title === sent.title && post.content === sent.content;
    must(same, "create: the title or content answered is not the one sent");
    const path = `/api/post/${post.id}`;
    must(location.endsWith(path), `create: Location ${JSON.stringify(location)}, not ${path}`);
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
    must(!read.notModified, "get without If-None-Match answered 304");
    const same = isDeepStrictEqual(expectPost(read.post, "get"), createdPost(ctx));
    must(same, `get: the post answered differs from the one created: ${preview(read.post)}`);
    return `200, the post as created`;
  },
  async "get: ETag and 304"(ctx) {
    const { id } = createdPost(ctx);
    return conditional((ifNoneMatch) => ctx.blog.getPost(id, { signal: ctx.signal, ifNoneMatch }));
  },
  async list(ctx) {
    const post = createdPost(ctx);
    const list = await ctx.blog.listPosts(ctx);
    must(!list.notModified, "list without If-None-Match answered 304");
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
    const wait = 1_100 - (Date.now() - (ctx.createdAtMs ?? 0));
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const title = "Smoke check: updated";
    const now = expectPost(await ctx.blog.updatePost(post.id, { title }, ctx), "update");
    is("update: title", now.title, title);
    must(now.content === post.content, "update: content changed, though not sent");
    is("update: created_at", now.created_at, post.created_at);
    const before = instantOf(ctx, post.updated_at, "updated_at before", ctx.createdAtMs);
    const after = instantOf(ctx, now.updated_at, "updated_at after");
    const later = `update: updated_at ${now.updated_at} is not later than ${post.updated_at}`;
    must(after > before, later);
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
    must(same, `the retry made or answered another post: #${first.id}, then #${again.post.id}`);
    return `the retry answered post #${again.post.id} again, and made no other`;
  },
  async "bad input"(ctx) {
    // Sent past the client's types, as a client without them could.
    const noContent = ctx.blog.createPost(/** @type {never} */ ({ title: "No content" }), ctx);
    const missing = "Missing required fields: content";
    await refusal(ctx, noContent, "a create without content", 400, missing);
    const abc = ctx.blog.getPost(/** @type {never} */ ("abc"), ctx);
    await refusal(ctx, abc, "GET /api/post/abc", 400, "Blog post id must be a positive integer");
    return "a create without content and the id abc are 400, each naming the problem";
  },
  async delete(ctx) {
    const { id } = createdPost(ctx);
    is("delete answered", (await ctx.blog.deletePost(id, ctx)).response.status, 204);
    ctx.created.delete(id);
    ctx.deleted = true;
    is("a second delete answered", (await ctx.blog.deletePost(id, ctx)).response.status, 204);
    return "204, and 204 again for the second";
  },
  async "get after delete"(ctx) {
    if (!ctx.deleted) throw new Skip("the delete step did not pass");
    const { id } = createdPost(ctx);
    const detail = `Blog post #${id} not found`;
    await refusal(ctx, ctx.blog.getPost(id, ctx), `GET /api/post/${id}`, 404, detail);
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
    must(preflight.status < 300, `${from} answered ${preflight.status}`);
    const wanted = { origin: [origin], methods: ["POST"], headers: asked };
    for (const [what, names] of Object.entries(wanted)) {
      const header = `access-control-allow-${what}`;
      const allowed = (preflight.headers.get(header) ?? "").toLowerCase().split(/\s*,\s*/);
      const all =
        allowed.includes("*") || names.every((name) => allowed.includes(name.toLowerCase()));
      must(all, `${from}: ${header} ${JSON.stringify(preflight.headers.get(header))}`);
    }
    const headers = { origin };
    const { response } = await ctx.blog.api.GET("/api/post", { headers, signal: ctx.signal });
    const read = response.headers.get("access-control-allow-origin") !== null;
    must(read, `a list from ${origin} has no Access-Control-Allow-Origin`);
    return `${origin} may send POST with ${asked.join(", ")}, and reads the answers`;
  },
};

/**
 * Runs every step in order, printing one line each; a skipped step, or all after a halt, is
 * printed as skipped. Returns how many failed.
 * @param {SmokeContext} ctx
 * @param {(line: string) => void} print
 */
export async function runSteps(ctx, print) {
  let failed = 0;
  const steps = Object.entries(STEPS);
  for (const [index, [name, step]] of steps.entries()) {
    if (ctx.signal.aborted) break;
    if (ctx.halt) {
      print(`skip  the ${steps.length - index} steps left: ${ctx.halt}`);
      break;
    }
    try {
      print(`ok    ${name}: ${await step(ctx)}`);
    } catch (error) {
      if (ctx.signal.aborted) break;
      if (error instanceof Skip) {
        print(`skip  ${name}: ${error.message}`);
        continue;
      }
      failed += 1;
      // An answer that broke a rule fails this step; no answer at all (nothing listening, not
      // this API) fails every later one too. The client's message names the request.
      if (!(error instanceof Deviation || error instanceof ApiError)) {
        ctx.halt = "the service did not answer";
      }
      print(`FAIL  ${name}: ${/** @type {Error} */ (error).message}`);
    }
  }
  return failed;
}
