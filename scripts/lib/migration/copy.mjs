// Copying posts into a service of this API: each one created with its own id and timestamps, a
// 409 resolved by reading the post that is there, then every post checked on the target.
import { JSONParser } from "@streamparser/json";
import pMap from "p-map";
import { UnreachableError } from "../../../client/errors.mjs";
import { connect, isAnswer, isPaused, reasonOf, using } from "../api.mjs";
import { StopError, progress } from "../cli.mjs";
import { clockOf } from "./source.mjs";

/**
 * @typedef {import("./source.mjs").SourcePost} SourcePost
 * @typedef {import("./source.mjs").Source} Source
 * @typedef {import("../api.mjs").Service} Service
 * @typedef {import("../zoned-time.mjs").ZonedClock} ZonedClock
 * @typedef {{ outcome: "created" | "already there" | "conflict" | "failed", id: number, reason?: string }} Result
 * @typedef {{ to: string, token?: string, toZone: string, concurrency: number, dryRun: boolean }} CopyOptions
 */

/** An instant as ISO 8601 in UTC, so the target stores the same instant; null stays null. */
const utc = (/** @type {number | null} */ instant) =>
  instant === null ? null : new Date(instant).toISOString();

/**
 * The fields in which a post the target shows (timestamps in its zone, to the second) differs
 * from the source post; empty when they are the same post.
 * @param {SourcePost} source @param {Record<string, unknown>} shown @param {ZonedClock} clock
 */
export function differences(source, shown, clock) {
  return /** @type {const} */ (["title", "content", "created_at", "updated_at"]).filter((key) => {
    const want = source[key];
    const text = shown[key];
    if (typeof want === "string" || want === null) return text !== want;
    // The service shows whole seconds; a fall-back hour shows two instants as one text.
    const second = Math.floor(want / 1000) * 1000;
    return typeof text !== "string" || !(clock.instantsOf(text) ?? []).includes(second);
  });
}

/**
 * What the target's post under this id means, from the fields that differ: a conflict if any,
 * else already there, or created when it is missing (undefined) or this run's create made it.
 * @param {number} id @param {string[] | undefined} differ
 * @returns {Result}
 */
function found(id, differ, created = false) {
  if (!differ?.length) return { outcome: created || !differ ? "created" : "already there", id };
  return { outcome: "conflict", id, reason: `the target's post differs in ${differ.join(", ")}` };
}

/** Creates every source post on the target, or finds it there; never overwrites one. */
export async function copyPosts(/** @type {Source} */ source, /** @type {CopyOptions} */ options) {
  const { to, token, concurrency } = options;
  const target = await connect(to, { token, name: "The target" });
  const clock = clockOf(options.toZone);
  /** @type {Result[]} */
  const results = source.failed.map(({ id, reason }) => ({ outcome: "failed", id, reason }));
  if (options.dryRun) {
    // What a copy would do, from the target's list: nothing is written.
    const there = await compare(source, target, clock);
    results.push(...source.posts.map(({ id }) => found(id, there.get(id))));
    return { results, target };
  }

  // One call sent once, so that a target nothing answers on, or a paused one, stops the run at
  // once, rather than after every create has spent its retries. Any other answer will do: the
  // creates say what it means.
  const probe = await connect(to, { token, name: "The target", attempts: 1 });
  await probe.blog.getPost(1).catch(async (/** @type {unknown} */ error) => {
    if (error instanceof UnreachableError || isPaused(error)) {
      await using(probe, () => Promise.reject(error));
    }
  });
  const bar = progress(source.posts.length, "posts");
  /** @returns {Promise<Result>} */
  const copyOne = async (/** @type {SourcePost} */ post) => {
    // A client of this post's own, so that its retries are this post's: the lanes' calls retry too.
    const own = await connect(to, { token, name: "The target" });
    const { id } = post;
    const body = { ...post, created_at: utc(post.created_at), updated_at: utc(post.updated_at) };
    try {
      for (let round = 0; round < 3; round++) {
        let pending = false;
        try {
          // One Idempotency-Key per create, kept on its retries: a create whose answer was lost
          // is answered again rather than refused as a taken id.
          await using(own, (blog) => blog.createPost(body));
          return { outcome: "created", id };
        } catch (error) {
          if (!isAnswer(error, 409)) return { outcome: "failed", id, reason: reasonOf(error) };
          // Every retry kept the create's key, and the service writes a post and its key's outcome
          // in one transaction, so a 409 means another request made this post: unless it says the
          // key's first request is still running (Retry-After), which may yet make it.
          pending = error.response.headers.has("retry-after");
        }
        try {
          const read = await using(own, (blog) => blog.getPost(id));
          if (read.notModified) throw new Error("a read without If-None-Match answered 304");
          return found(id, differences(post, read.post, clock), pending);
        } catch (error) {
          // Deleted meanwhile: create it again.
          if (!isAnswer(error, 404)) return { outcome: "failed", id, reason: reasonOf(error) };
        }
      }
      return { outcome: "failed", id, reason: "created and deleted again on the target, 3 times" };
    } finally {
      target.retries += own.retries;
      bar.tick();
    }
  };

  // A failure that stops the run (a StopError) stops every lane from taking another post; the
  // posts in flight then finish on their own, after the run has said why it stopped.
  const copied = await pMap(source.posts, copyOne, { concurrency }).finally(bar.end);
  return { results: [...results, ...copied], target };
}

/**
 * The fields in which the target's post differs, for each source post the target holds. The
 * list is read as it streams in, so a target far larger than the source is never held whole.
 * @param {Source} source @param {Service} target @param {ZonedClock} clock
 */
async function compare(source, target, clock) {
  const bySourceId = new Map(source.posts.map((post) => [post.id, post]));
  /** @type {Map<number, string[]>} */
  const found = new Map();
  const where = `The target ${target.root} answered GET /api/post`;
  const list = await using(target, (blog) => blog.streamPosts()).catch((error) => {
    throw new StopError(`${where} with ${reasonOf(error)}`);
  });
  if (list.notModified) throw new StopError(`${where} with 304 to a read without If-None-Match`);
  const parser = new JSONParser({ paths: ["$.*"], keepStack: false });
  parser.onValue = ({ value }) => {
    const shown = /** @type {Record<string, unknown>} */ (value);
    const post = bySourceId.get(/** @type {number} */ (shown.id));
    if (post) found.set(post.id, differences(post, shown, clock));
  };
  try {
    for await (const chunk of list.body) parser.write(chunk);
    // A complete array ends the parser by itself; a body cut short is ended here, and refused.
    if (!parser.isEnded) parser.end();
  } catch (error) {
    const why = /** @type {Error} */ (error).message;
    throw new StopError(`${where} with a body that is not a JSON list (${why})`);
  }
  return found;
}

/**
 * Checks every source post on the target, field by field; returns the ids that do not match.
 * @param {Source} source @param {Service} target @param {string} toZone
 */
export async function verify(source, target, toZone) {
  const found = await compare(source, target, clockOf(toZone));
  return source.posts
    .map(({ id }) => ({ id, reason: found.get(id)?.join(", ") ?? "every field: it is missing" }))
    .filter((mismatch) => mismatch.reason !== "");
}
