// What a running service of this API must do, as steps over real HTTP: each passes with a short
// account of what it saw, or throws a Deviation saying what differed. The steps share a context:
// the service, the token, and every post made so far, which `cleanUp` deletes whatever happened.
import { randomUUID } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { ZonedClock } from "../zoned-time.mjs";
import { send } from "./http.mjs";

/** A rule the service broke. */
export class Deviation extends Error {}

/**
 * @typedef {{ id: number, title: string, content: string, created_at: string | null, updated_at: string | null }} Post
 * @typedef {{
 *   base: string, token?: string, zone: string, signal: AbortSignal,
 *   created: Set<number>, post?: Post, createdAtMs?: number, deleted?: boolean, halt?: string,
 * }} SmokeContext
 * @typedef {{ name: string, needs?: "post" | "deleted", run: (ctx: SmokeContext) => Promise<string> }} Step
 */

const POST_KEYS = ["content", "created_at", "id", "title", "updated_at"];
/** How far a new post's timestamps may be from this machine's clock (clock skew, slow answers). */
export const CLOCK_TOLERANCE_MS = 5 * 60_000;
/** Over the service's gzip threshold (1 KiB), so the list is worth compressing. */
const CONTENT = `A post made by the smoke check, deleted when it ends. ${"Lorem ipsum dolor sit amet. ".repeat(40)}`;

/** @returns {never} */
const fail = (/** @type {string} */ message) => {
  throw new Deviation(message);
};

const preview = (/** @type {Buffer} */ body) => {
  const text = body.toString("utf8");
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
};

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

/** @param {import("./http.mjs").RawAnswer} answer */
function expectStatus(answer, /** @type {number} */ status, /** @type {string} */ what) {
  if (answer.status !== status) {
    fail(`${what} answered ${answer.status}, not ${status}: ${preview(answer.body)}`);
  }
}

/** @param {import("./http.mjs").RawAnswer | Buffer} answer */
function jsonOf(answer, /** @type {string} */ what) {
  const body = Buffer.isBuffer(answer) ? answer : answer.body;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return fail(`${what}: the body is not JSON: ${preview(body)}`);
  }
}

/** @param {import("./http.mjs").RawAnswer} answer */
function expectDetail(
  answer,
  /** @type {number} */ status,
  /** @type {string} */ detail,
  what = "",
) {
  expectStatus(answer, status, what);
  const body = jsonOf(answer, what);
  if (body?.detail !== detail) {
    fail(`${what}: detail ${JSON.stringify(body?.detail)}, not ${JSON.stringify(detail)}`);
  }
}

/** Remembers the post an answer made, so cleanUp deletes it. */
function remember(/** @type {SmokeContext} */ ctx, /** @type {unknown} */ post) {
  const id = /** @type {{ id?: unknown }} */ (post)?.id;
  if (typeof id === "number" && Number.isSafeInteger(id) && id > 0) ctx.created.add(id);
}

/** @returns {Post} */
function expectPost(/** @type {unknown} */ value, /** @type {string} */ what) {
  const keys =
    value && typeof value === "object" && !Array.isArray(value) ? Object.keys(value).sort() : [];
  if (keys.join() !== POST_KEYS.join()) {
    fail(`${what}: keys ${JSON.stringify(keys)}, not exactly ${POST_KEYS.join(", ")}`);
  }
  const post = /** @type {Post} */ (value);
  if (!Number.isSafeInteger(post.id) || post.id < 1) {
    fail(`${what}: id ${JSON.stringify(post.id)} is not a positive integer`);
  }
  return post;
}

/** Whether two posts have the same five values. */
const samePost = (/** @type {Post} */ a, /** @type {Post} */ b) =>
  POST_KEYS.every(
    (key) => a[/** @type {keyof Post} */ (key)] === b[/** @type {keyof Post} */ (key)],
  );

/**
 * The instant a timestamp names in the service's zone, nearest to `near`; a Deviation naming the
 * rule when it is not `YYYY-DD-MM HH:MM:SS` or not near.
 * @param {SmokeContext} ctx
 * @param {unknown} value
 * @param {string} name
 * @returns {number}
 */
function instantOf(ctx, value, name, near = Date.now()) {
  const clock = new ZonedClock(ctx.zone);
  const instants = typeof value === "string" ? clock.instantsOf(value) : undefined;
  if (!instants) {
    return fail(
      `${name} ${JSON.stringify(value)} is not YYYY-DD-MM HH:MM:SS (day before month, 24-hour)`,
    );
  }
  const nearest = instants.sort((a, b) => Math.abs(a - near) - Math.abs(b - near))[0];
  if (nearest === undefined || Math.abs(nearest - near) > CLOCK_TOLERANCE_MS) {
    fail(
      `${name} ${value} is not the time now in ${ctx.zone} (${clock.show(near)}): ` +
        `month before day, or another zone?`,
    );
  }
  return nearest;
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
      instantOf(ctx, post.created_at, "created_at", ctx.createdAtMs);
      instantOf(ctx, post.updated_at, "updated_at", ctx.createdAtMs);
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
      const before = instantOf(ctx, post.updated_at, "updated_at before", ctx.createdAtMs);
      const after = instantOf(ctx, updated.updated_at, "updated_at after");
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

/** The list's checks: an array, ascending by id, holding `post` as it is. */
function listHolds(
  /** @type {unknown} */ list,
  /** @type {Post} */ post,
  /** @type {string} */ what,
) {
  if (!Array.isArray(list)) return fail(`${what}: not an array`);
  const ids = list.map((item) => item?.id);
  if (!ids.every((id, i) => i === 0 || id > ids[i - 1])) fail(`${what}: ids not ascending`);
  const found = list.find((item) => item?.id === post.id);
  if (!found) return fail(`${what}: post #${post.id} is missing`);
  if (!samePost(expectPost(found, what), post)) fail(`${what}: post #${post.id} differs`);
  return `200, ${list.length} posts ascending by id, #${post.id} among them`;
}

/**
 * Runs every step in order, printing one line each; a step whose need is unmet, or any after a
 * halt, is printed as skipped. Returns how many failed.
 * @param {SmokeContext} ctx
 * @param {(line: string) => void} print
 */
export async function runSteps(ctx, print) {
  let failed = 0;
  for (const [index, step] of STEPS.entries()) {
    if (ctx.signal.aborted) break;
    if (ctx.halt) {
      print(`skip  the ${STEPS.length - index} steps left: ${ctx.halt}`);
      break;
    }
    if (step.needs !== undefined && !ctx[step.needs]) {
      print(
        `skip  ${step.name}: the ${step.needs === "post" ? "create" : "delete"} step did not pass`,
      );
      continue;
    }
    try {
      print(`ok    ${step.name}: ${await step.run(ctx)}`);
    } catch (error) {
      if (ctx.signal.aborted) break;
      failed += 1;
      const message = /** @type {Error} */ (error).message;
      if (error instanceof Deviation) {
        print(`FAIL  ${step.name}: ${message}`);
      } else {
        // The service could not be reached or did not answer: no later step can pass.
        ctx.halt = "the service did not answer";
        print(`FAIL  ${step.name}: ${ctx.base}: ${message}`);
      }
    }
  }
  return failed;
}

/**
 * Deletes every post the steps made. Returns the ids it could not delete.
 * @param {SmokeContext} ctx
 * @param {AbortSignal} signal
 */
export async function cleanUp(ctx, signal) {
  const left = [];
  for (const id of ctx.created) {
    try {
      const answer = await send(ctx.base, "DELETE", `/api/post/${id}`, {
        headers: ctx.token ? { authorization: `Bearer ${ctx.token}` } : {},
        signal,
      });
      if (answer.status === 204) ctx.created.delete(id);
      else left.push(id);
    } catch {
      left.push(id);
    }
  }
  return left;
}
