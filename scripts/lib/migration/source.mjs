// Where posts come from: a service of this API (timestamps `YYYY-DD-MM HH:MM:SS` in that server's
// zone), a file `npm run export` wrote (ISO 8601 with an offset) or a bare JSON array of posts as
// the API shows them. Every post becomes instants, checked before anything is written.
import { readFile } from "node:fs/promises";
import { Info } from "luxon";
import { connect, reasonOf, using } from "../api.mjs";
import { StopError, isUrl } from "../cli.mjs";
import { ZonedClock } from "../zoned-time.mjs";

/**
 * A post as the tools carry it: timestamps as instants (ms since the epoch) or null.
 * @typedef {{ id: number, title: string, content: string, created_at: number | null, updated_at: number | null }} SourcePost
 * @typedef {{ posts: SourcePost[], failed: { id: number, reason: string }[], ambiguous: number[], source: string }} Source
 * @typedef {{ id: number, title: string, content: string, created_at: string | null, updated_at: string | null }} ShownPost
 */

const TIMESTAMP_FIELDS = /** @type {const} */ (["created_at", "updated_at"]);
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** A zone's clock, or a StopError naming the zone when it is unknown. */
export function clockOf(/** @type {string} */ zone) {
  if (Info.isValidIANAZone(zone)) return new ZonedClock(zone);
  throw new StopError(
    `Unknown time zone ${JSON.stringify(zone)}: use an IANA name such as Europe/Paris or UTC`,
  );
}

/** The summary's line on local times a fall-back repeats: how many, and up to ten ids. */
export function ambiguousLine(/** @type {number[]} */ ids) {
  const more = ids.length > 10 ? ` and ${ids.length - 10} more` : "";
  const which = ids.length === 0 ? "" : ` (ids ${ids.slice(0, 10).join(", ")}${more})`;
  return `ambiguous local times (the earlier instant taken): ${ids.length}${which}`;
}

/** Reads the posts of a service or a file as instants; a missing field or bad file stops the run. */
export async function readSource(
  /** @type {string} */ from,
  /** @type {{ zone: string, token?: string }} */ { zone, token },
) {
  const clock = clockOf(zone);
  /** Service form: the instants a local time names; a problem when it names none. */
  const local = (/** @type {string} */ text, /** @type {string} */ key) => {
    const instants = clock.instantsOf(text);
    if (instants === undefined) return `${key} ${JSON.stringify(text)} is not YYYY-DD-MM HH:MM:SS`;
    if (instants.length > 0) return instants;
    return `${key} ${text} does not exist in ${clock.zone} (its clocks skip that hour)`;
  };
  if (isUrl(from)) {
    const service = await connect(from, { token, name: "The source" });
    const noList = (/** @type {string} */ answered) =>
      new StopError(
        `The source ${service.root} answered GET /api/post with ${answered} and no list of posts: is it a service of this API?`,
      );
    const list = await using(service, (blog) => blog.listPosts()).catch((error) => {
      throw noList(reasonOf(error));
    });
    if (list.notModified || !Array.isArray(list.posts)) throw noList(String(list.response.status));
    return toSource(list.posts, service.root, local);
  }
  let parsed;
  try {
    parsed = JSON.parse(await readFile(from, "utf8"));
  } catch (error) {
    const { code, message } = /** @type {NodeJS.ErrnoException} */ (error);
    if (error instanceof SyntaxError) throw new StopError(`${from} is not valid JSON (${message})`);
    throw new StopError(`Cannot read ${from}: ${code === "ENOENT" ? "no such file" : code}`);
  }
  if (Array.isArray(parsed)) return toSource(parsed, from, local);
  if (!Array.isArray(parsed?.posts)) {
    throw new StopError(
      `${from} holds neither an export ({"source", "exported_at", "posts": [...]}) nor a JSON array of posts`,
    );
  }
  // Export form: ISO 8601 with an offset, the same instant in any zone; anything else stops.
  return toSource(parsed.posts, from, (text, key, label) => {
    const ms = ISO_WITH_OFFSET.test(text) ? Date.parse(text) : NaN;
    if (!Number.isNaN(ms)) return [ms];
    throw new StopError(`${label} has ${key} ${JSON.stringify(text)}, not ISO 8601 with an offset`);
  });
}

/**
 * Posts as instants: `instantsOf` reads a timestamp (a problem fails that post alone; two
 * instants, in the hour a fall-back repeats, take the earlier and count the post as ambiguous).
 * A post lacking a field, or an id twice, stops the run.
 * @param {unknown[]} raw @param {string} where
 * @param {(text: string, key: string, label: string) => number[] | string} instantsOf
 */
function toSource(raw, where, instantsOf) {
  /** @type {Source} */
  const source = { posts: [], failed: [], ambiguous: [], source: where };
  const seen = new Set();
  raw.forEach((value, index) => {
    const post = checkFields(value, `Post ${index + 1} of ${where}`);
    if (seen.has(post.id)) throw new StopError(`${where} has post #${post.id} twice`);
    seen.add(post.id);
    const label = `Post ${index + 1} of ${where} (id ${post.id})`;
    const read = TIMESTAMP_FIELDS.map((key) => {
      const text = post[key];
      return text === null ? [null] : instantsOf(text, key, label);
    });
    const problems = read.filter((instants) => typeof instants === "string");
    if (problems.length > 0) {
      source.failed.push({ id: post.id, reason: problems.join("; ") });
      return;
    }
    const [created, updated] = /** @type {[(number | null)[], (number | null)[]]} */ (read);
    if (created.length > 1 || updated.length > 1) source.ambiguous.push(post.id);
    source.posts.push({ ...post, created_at: created[0] ?? null, updated_at: updated[0] ?? null });
  });
  return source;
}

/** A post's fields, checked; a StopError names the first post that lacks one or has a bad one. */
function checkFields(/** @type {any} */ post, /** @type {string} */ label) {
  if (post === null || typeof post !== "object" || Array.isArray(post)) {
    throw new StopError(`${label} is not a JSON object`);
  }
  const named = Number.isSafeInteger(post.id) ? `${label} (id ${post.id})` : label;
  const missing = ["id", "title", "content", ...TIMESTAMP_FIELDS].filter((key) => !(key in post));
  if (missing.length > 0) throw new StopError(`${named} lacks ${missing.join(", ")}`);
  if (named === label || post.id < 1) {
    throw new StopError(`${label} has id ${JSON.stringify(post.id)}, not a positive integer`);
  }
  const { id, title, content, created_at, updated_at } = post;
  const notText = Object.entries({ title, content }).find(([, text]) => typeof text !== "string");
  if (notText) throw new StopError(`${named} has a ${notText[0]} that is not text`);
  const neither = Object.entries({ created_at, updated_at }).find(
    ([, text]) => text !== null && typeof text !== "string",
  );
  if (neither) throw new StopError(`${named} has a ${neither[0]} that is neither text nor null`);
  return /** @type {ShownPost} */ ({ id, title, content, created_at, updated_at });
}
