// Copying posts into a service of this API: each one created with its own id and timestamps, a
// 409 resolved by reading the post that is there, then every post checked on the target.
import { JSONParser } from "@streamparser/json";
import { UnreachableError } from "../../../client/errors.mjs";
import { connect, isAnswer, reasonOf, using } from "../api.mjs";
import { StopError, progress } from "../cli.mjs";
import { clockOf } from "./source.mjs";

/**
 * @typedef {import("./source.mjs").SourcePost} SourcePost
 * @typedef {import("./source.mjs").Source} Source
 * @typedef {import("../api.mjs").Service} Service
 * @typedef {"created" | "already there" | "conflict" | "failed"} Outcome
 * @typedef {{ outcome: Outcome, id: number, reason?: string }} Result
 * @typedef {{ to: string, token?: string, toZone: string, concurrency: number, dryRun: boolean }} CopyOptions
 */

/** The create body: timestamps as ISO 8601 in UTC, so the target stores the same instant. */
const createBody = (/** @type {SourcePost} */ post) => ({
  id: post.id,
  title: post.title,
  content: post.content,
  created_at: post.created_at === null ? null : new Date(post.created_at).toISOString(),
  updated_at: post.updated_at === null ? null : new Date(post.updated_at).toISOString(),
});

/**
 * The fields in which a post the target shows (timestamps in its zone, to the second) differs
 * from the source post; empty when they are the same post.
 */
export function differences(
  /** @type {SourcePost} */ source,
  /** @type {Record<string, unknown>} */ shown,
  /** @type {import("../zoned-time.mjs").ZonedClock} */ clock,
) {
  const differ = [];
  for (const key of /** @type {const} */ (["title", "content"])) {
    if (shown[key] !== source[key]) differ.push(key);
  }
  for (const key of /** @type {const} */ (["created_at", "updated_at"])) {
    const instant = source[key];
    const text = shown[key];
    // The service shows whole seconds; a fall-back hour shows two instants as one text.
    const same =
      instant === null
        ? text === null
        : typeof text === "string" &&
          (clock.instantsOf(text) ?? []).includes(Math.floor(instant / 1000) * 1000);
    if (!same) differ.push(key);
  }
  return differ;
}

/**
 * Runs `work` over `items` with at most `concurrency` at once. A failure stops every lane from
 * taking another item; the items in flight finish, then it is thrown.
 */
async function pool(
  /** @type {SourcePost[]} */ items,
  /** @type {number} */ concurrency,
  /** @type {(item: SourcePost) => Promise<void>} */ work,
) {
  let next = 0;
  /** @type {{ error: unknown } | undefined} */
  let stopped;
  const lane = async () => {
    while (!stopped && next < items.length) {
      try {
        await work(/** @type {SourcePost} */ (items[next++]));
      } catch (error) {
        stopped ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  if (stopped) throw stopped.error;
}

/**
 * One call sent once, so that a target nothing answers on stops the run at once, rather than
 * after every create has spent its retries. Any answer will do: the creates say what it means.
 */
async function reach(/** @type {CopyOptions} */ options) {
  const probe = await connect(options.to, {
    token: options.token,
    name: "The target",
    attempts: 1,
  });
  await probe.blog.getPost(1).catch(async (/** @type {unknown} */ error) => {
    if (error instanceof UnreachableError) await using(probe, () => Promise.reject(error));
  });
}

/** Creates every source post on the target, or finds it there; never overwrites one. */
export async function copyPosts(/** @type {Source} */ source, /** @type {CopyOptions} */ options) {
  const target = await connect(options.to, { token: options.token, name: "The target" });
  const clock = clockOf(options.toZone);
  /** @type {Result[]} */
  const results = source.failed.map(({ id, reason }) => ({ outcome: "failed", id, reason }));

  /** Reads the post the target holds under this id and compares it. */
  const resolveTaken = async (/** @type {SourcePost} */ post, /** @type {boolean} */ tried) => {
    let shown;
    try {
      const read = await using(target, (blog) => blog.getPost(post.id));
      if (read.notModified) throw new Error("a read without If-None-Match answered 304");
      shown = read.post;
    } catch (error) {
      if (isAnswer(error, 404)) return undefined; // deleted meanwhile: create it again
      return { outcome: "failed", id: post.id, reason: reasonOf(error) };
    }
    const differ = differences(post, shown, clock);
    if (differ.length > 0) {
      return {
        outcome: "conflict",
        id: post.id,
        reason: `the target's post differs in ${differ.join(", ")}`,
      };
    }
    // A create this run sent whose answer was lost (a 5xx, a cut connection) counts as created.
    return { outcome: tried ? "created" : "already there", id: post.id };
  };

  /** @returns {Promise<Result>} */
  const copyOne = async (/** @type {SourcePost} */ post) => {
    for (let round = 0; round < 3; round++) {
      const before = target.retries;
      try {
        // One Idempotency-Key per create, kept on its retries: a create whose answer was lost
        // is answered again rather than refused as a taken id.
        await using(target, (blog) => blog.createPost(createBody(post)));
        return { outcome: "created", id: post.id };
      } catch (error) {
        if (!isAnswer(error, 409))
          return { outcome: "failed", id: post.id, reason: reasonOf(error) };
      }
      const tried = round > 0 || target.retries > before;
      const resolved = await resolveTaken(post, tried);
      if (resolved) return /** @type {Result} */ (resolved);
    }
    return {
      outcome: "failed",
      id: post.id,
      reason: "created and deleted again on the target, three times",
    };
  };

  if (options.dryRun)
    return { results: [...results, ...(await plan(source, target, clock))], target };

  await reach(options);
  const bar = progress(source.posts.length, "posts");
  try {
    await pool(source.posts, options.concurrency, async (post) => {
      results.push(await copyOne(post));
      bar.tick();
    });
  } finally {
    bar.end();
  }
  return { results, target };
}

/** What a copy would do, from the target's list: nothing is written. */
async function plan(
  /** @type {Source} */ source,
  /** @type {Service} */ target,
  /** @type {import("../zoned-time.mjs").ZonedClock} */ clock,
) {
  const bySourceId = new Map(source.posts.map((post) => [post.id, post]));
  /** @type {Map<number, Result>} */
  const found = new Map();
  await forEachTargetPost(target, (shown) => {
    const post = bySourceId.get(/** @type {number} */ (shown.id));
    if (!post) return;
    const differ = differences(post, shown, clock);
    found.set(
      post.id,
      differ.length === 0
        ? { outcome: "already there", id: post.id }
        : {
            outcome: "conflict",
            id: post.id,
            reason: `the target's post differs in ${differ.join(", ")}`,
          },
    );
  });
  return source.posts.map(
    (post) => found.get(post.id) ?? /** @type {Result} */ ({ outcome: "created", id: post.id }),
  );
}

/**
 * Hands `visit` each post of the target's list as the list streams in, so that a target far
 * larger than the source is never held whole: memory stays bounded by the source.
 */
export async function forEachTargetPost(
  /** @type {Service} */ target,
  /** @type {(post: Record<string, unknown>) => void} */ visit,
) {
  const where = `The target ${target.root} answered GET /api/post`;
  const list = await using(target, (blog) => blog.streamPosts()).catch((error) => {
    throw new StopError(`${where} with ${reasonOf(error)}`);
  });
  if (list.notModified) throw new StopError(`${where} with 304 to a read without If-None-Match`);
  const parser = new JSONParser({ paths: ["$.*"], keepStack: false });
  parser.onValue = ({ value }) => visit(/** @type {Record<string, unknown>} */ (value));
  try {
    for await (const chunk of list.body) parser.write(chunk);
    // A complete array ends the parser by itself; a body cut short is ended here, and refused.
    if (!parser.isEnded) parser.end();
  } catch (error) {
    throw new StopError(
      `${where} with a body that is not a JSON list (${/** @type {Error} */ (error).message})`,
    );
  }
}

/** Checks every source post on the target, field by field; returns the ids that do not match. */
export async function verify(
  /** @type {Source} */ source,
  /** @type {Service} */ target,
  /** @type {string} */ toZone,
) {
  const clock = clockOf(toZone);
  const bySourceId = new Map(source.posts.map((post) => [post.id, post]));
  /** @type {Map<number, string[]>} */
  const differing = new Map();
  const seen = new Set();
  await forEachTargetPost(target, (shown) => {
    const post = bySourceId.get(/** @type {number} */ (shown.id));
    if (!post) return;
    seen.add(post.id);
    const differ = differences(post, shown, clock);
    if (differ.length > 0) differing.set(post.id, differ);
  });
  return source.posts
    .map((post) => ({
      id: post.id,
      reason: seen.has(post.id) ? differing.get(post.id)?.join(", ") : "every field: it is missing",
    }))
    .filter((m) => m.reason !== undefined);
}
