// The five operations as API Gateway handlers, each built over a repository and a logger.
// Importing this module builds nothing; lib/app/runtime.ts wires it, handlers/ exposes it.
import { PostNotFoundError } from "../posts/errors.js";
import { etagOf } from "../posts/etag.js";
import { fingerprintPayload, parseIdempotencyKey } from "../posts/idempotency-key.js";
import { parsePostId, serializePost, validateCreate, validateUpdate } from "../posts/post.js";
import type { PostRepository } from "../posts/repository.js";
import { httpHandler } from "./handler.js";
import type { Logger } from "./logger.js";
import { created, noContent, ok, okUnlessHeld, outgoing } from "./response.js";
import { streamedHandler } from "./stream.js";

/** The routes that name one post: `/api/post/{post_pk}`. */
const ONE_POST = "post_pk";

/**
 * GET /api/post → every post, ascending by id (304 when If-None-Match names that list),
 * streamed where the runtime streams: the list has no size limit but the stream's.
 */
export const listPosts = (
  posts: PostRepository,
  log: Logger,
  corsOrigins: readonly string[] = [],
) =>
  streamedHandler(
    async (request) => {
      const { json, etag, bytes } = await posts.listJson(request.signal, request.counts);
      return okUnlessHeld(json, etag, request.header("if-none-match"), bytes);
    },
    log,
    { corsOrigins },
  );

/**
 * The first list's work, done at init (handlers/list-posts.ts): the list body, kept by storage's
 * list cache, and its gzip, kept by the edge's memo, so the first list answers as a warm one does.
 */
export async function prepareList(posts: PostRepository, signal: AbortSignal): Promise<void> {
  const { json, etag, bytes } = await posts.listJson(signal);
  await outgoing(okUnlessHeld(json, etag, undefined, bytes), true);
}

/** GET /api/post/{post_pk} → the post (304 when If-None-Match names it), or 404. */
export const getPost = (posts: PostRepository, log: Logger, corsOrigins: readonly string[] = []) =>
  httpHandler(
    async (request) => {
      const id = parsePostId(request.pathId);
      const post = await posts.get(id, request.signal, request.counts);
      if (!post) throw new PostNotFoundError(id);
      const json = JSON.stringify(serializePost(post));
      return okUnlessHeld([json], etagOf(json), request.header("if-none-match"));
    },
    log,
    { pathParameter: ONE_POST, corsOrigins },
  );

/** POST /api/post → 201 with the new post (at most once per Idempotency-Key). */
export const createPost = (
  posts: PostRepository,
  log: Logger,
  corsOrigins: readonly string[] = [],
) =>
  httpHandler(
    async (request) => {
      const payload = request.jsonObject();
      const input = validateCreate(payload);
      const key = request.header("idempotency-key");
      const post =
        key === undefined
          ? await posts.create(input, request.signal, request.counts)
          : await posts.createOnce(
              input,
              { key: parseIdempotencyKey(key), fingerprint: fingerprintPayload(payload) },
              request.signal,
              request.counts,
            );
      // Under the path the request came through: the stage's name or a base path included.
      return created(serializePost(post), `${request.path}/${post.id}`);
    },
    log,
    { corsOrigins },
  );

/** PUT /api/post/{post_pk} → the updated post, or 404. */
export const updatePost = (
  posts: PostRepository,
  log: Logger,
  corsOrigins: readonly string[] = [],
) =>
  httpHandler(
    async (request) => {
      const id = parsePostId(request.pathId);
      const changes = validateUpdate(request.jsonObject());
      return ok(serializePost(await posts.update(id, changes, request.signal, request.counts)));
    },
    log,
    { pathParameter: ONE_POST, corsOrigins },
  );

/** DELETE /api/post/{post_pk} → 204, whether or not the post existed. */
export const deletePost = (
  posts: PostRepository,
  log: Logger,
  corsOrigins: readonly string[] = [],
) =>
  httpHandler(
    async (request) => {
      const id = parsePostId(request.pathId);
      await posts.delete(id, request.signal, request.counts);
      return noContent(`Blog post #${id} deleted`);
    },
    log,
    { pathParameter: ONE_POST, corsOrigins },
  );
