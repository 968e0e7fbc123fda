// Where posts come from: a service of this API (timestamps `YYYY-DD-MM HH:MM:SS` in that server's
// zone), a file `npm run export` wrote (ISO 8601 with an offset) or a bare JSON array of posts as
// the API shows them. Every post becomes instants, checked before anything is written.
import { readFile } from "node:fs/promises";
import { connect, reasonOf, using } from "../api.mjs";
import { StopError, isUrl } from "../cli.mjs";
import { ZonedClock } from "../zoned-time.mjs";

/**
 * A post as the tools carry it: timestamps as instants (ms since the epoch) or null.
 * @typedef {{ id: number, title: string, content: string, created_at: number | null, updated_at: number | null }} SourcePost
 * @typedef {{ posts: SourcePost[], failed: { id: number, reason: string }[], ambiguous: number[], source: string }} Source
 */

const TIMESTAMP_FIELDS = /** @type {const} */ (["created_at", "updated_at"]);
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** A zone's clock, or a StopError naming the zone when it is unknown. */
export function clockOf(/** @type {string} */ zone) {
  try {
    return new ZonedClock(zone);
  } catch {
    throw new StopError(
      `Unknown time zone ${JSON.stringify(zone)}: use an IANA name such as Europe/Paris or UTC`,
    );
  }
}

/** Every post of a service, read with `GET {url}/api/post`, as the API shows them. */
export async function fetchPosts(
  /** @type {string} */ url,
  /** @type {string | undefined} */ token,
) {
  const source = await connect(url, { token, name: "The source" });
  const noList = (/** @type {string} */ answered) =>
    new StopError(
      `The source ${source.root} answered GET /api/post with ${answered} and no list of posts: is it a service of this API?`,
    );
  const list = await using(source, (blog) => blog.listPosts()).catch((error) => {
    throw noList(reasonOf(error));
  });
  if (list.notModified || !Array.isArray(list.posts)) throw noList(String(list.response.status));
  return { posts: /** @type {unknown[]} */ (list.posts), root: source.root };
}

/** Reads the posts of a service or a file as instants; a missing field or bad file stops the run. */
export async function readSource(
  /** @type {string} */ from,
  /** @type {{ zone: string, token?: string }} */ { zone, token },
) {
  const clock = clockOf(zone);
  if (isUrl(from)) {
    const { posts, root } = await fetchPosts(from, token);
    return fromServiceForm(posts, clock, root);
  }
  let text;
  try {
    text = await readFile(from, "utf8");
  } catch (error) {
    const code = /** @type {NodeJS.ErrnoException} */ (error).code;
    throw new StopError(`Cannot read ${from}: ${code === "ENOENT" ? "no such file" : code}`);
  }
  /** @type {unknown} */
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new StopError(`${from} is not valid JSON (${/** @type {Error} */ (error).message})`);
  }
  if (Array.isArray(parsed)) return fromServiceForm(parsed, clock, from);
  const exported = /** @type {{ posts?: unknown }} */ (parsed);
  if (parsed !== null && typeof parsed === "object" && Array.isArray(exported.posts)) {
    return fromExportForm(exported.posts, from);
  }
  throw new StopError(
    `${from} holds neither an export ({"source", "exported_at", "posts": [...]}) nor a JSON array of posts`,
  );
}

/** Checks a post's fields; a StopError names the first post that lacks one. */
function checkFields(
  /** @type {unknown} */ value,
  /** @type {number} */ index,
  /** @type {string} */ where,
) {
  const post = /** @type {Record<string, unknown>} */ (value);
  const label = `Post ${index + 1} of ${where}`;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new StopError(`${label} is not a JSON object`);
  }
  const missing = ["id", "title", "content", ...TIMESTAMP_FIELDS].filter((key) => !(key in post));
  if (missing.length > 0) {
    const id = Number.isSafeInteger(post.id) ? ` (id ${post.id})` : "";
    throw new StopError(`${label}${id} lacks ${missing.join(", ")}`);
  }
  if (!Number.isSafeInteger(post.id) || /** @type {number} */ (post.id) < 1) {
    throw new StopError(`${label} has id ${JSON.stringify(post.id)}, not a positive integer`);
  }
  for (const key of ["title", "content"]) {
    if (typeof post[key] !== "string")
      throw new StopError(`${label} (id ${post.id}) has a ${key} that is not text`);
  }
  for (const key of TIMESTAMP_FIELDS) {
    if (post[key] !== null && typeof post[key] !== "string") {
      throw new StopError(`${label} (id ${post.id}) has a ${key} that is neither text nor null`);
    }
  }
  return /** @type {{ id: number, title: string, content: string, created_at: string | null, updated_at: string | null }} */ (
    post
  );
}

/** A source whose ids are unique; a repeated id stops the run (which copy would win?). */
function unique(/** @type {Source} */ source) {
  const seen = new Set();
  for (const post of source.posts) {
    if (seen.has(post.id)) throw new StopError(`${source.source} has post #${post.id} twice`);
    seen.add(post.id);
  }
  return source;
}

/** Posts as the API shows them: `YYYY-DD-MM HH:MM:SS` in `clock`'s zone. */
function fromServiceForm(
  /** @type {unknown[]} */ raw,
  /** @type {ZonedClock} */ clock,
  /** @type {string} */ where,
) {
  /** @type {Source} */
  const source = { posts: [], failed: [], ambiguous: [], source: where };
  raw.forEach((value, index) => {
    const post = checkFields(value, index, where);
    /** @type {string[]} */
    const problems = [];
    let ambiguous = false;
    const instant = (/** @type {"created_at" | "updated_at"} */ key) => {
      const text = post[key];
      if (text === null) return null;
      const instants = clock.instantsOf(text);
      if (instants === undefined) {
        problems.push(`${key} ${JSON.stringify(text)} is not YYYY-DD-MM HH:MM:SS`);
        return null;
      }
      if (instants.length === 0) {
        problems.push(`${key} ${text} does not exist in ${clock.zone} (its clocks skip that hour)`);
        return null;
      }
      // A fall-back repeats an hour: its first pass is taken, and the summary counts the post.
      if (instants.length > 1) ambiguous = true;
      return /** @type {number} */ (instants[0]);
    };
    const created = instant("created_at");
    const updated = instant("updated_at");
    if (problems.length > 0) source.failed.push({ id: post.id, reason: problems.join("; ") });
    else {
      if (ambiguous) source.ambiguous.push(post.id);
      source.posts.push({
        id: post.id,
        title: post.title,
        content: post.content,
        created_at: created,
        updated_at: updated,
      });
    }
  });
  return unique(source);
}

/** Posts of an export file: ISO 8601 timestamps with an offset, the same instant in any zone. */
function fromExportForm(/** @type {unknown[]} */ raw, /** @type {string} */ where) {
  /** @type {Source} */
  const source = { posts: [], failed: [], ambiguous: [], source: where };
  raw.forEach((value, index) => {
    const post = checkFields(value, index, where);
    const instant = (/** @type {"created_at" | "updated_at"} */ key) => {
      const text = post[key];
      if (text === null) return null;
      const ms = ISO_WITH_OFFSET.test(text) ? Date.parse(text) : NaN;
      if (Number.isNaN(ms)) {
        throw new StopError(
          `Post ${index + 1} of ${where} (id ${post.id}) has ${key} ${JSON.stringify(text)}, not ISO 8601 with an offset`,
        );
      }
      return ms;
    };
    source.posts.push({
      id: post.id,
      title: post.title,
      content: post.content,
      created_at: instant("created_at"),
      updated_at: instant("updated_at"),
    });
  });
  return unique(source);
}
