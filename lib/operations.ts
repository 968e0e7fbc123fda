// Use cases: the five operations as API Gateway handlers, each built over a repository and a
// logger. Importing this module builds nothing; lib/runtime.ts wires it, handlers/ exposes it.
import { NotFoundError } from "./errors.js";
import { httpHandler } from "./http-handler.js";
import { etagOf } from "./etag.js";
import { created, noContent, ok, okUnlessHeld } from "./http-response.js";
import { fingerprintPayload, parseIdempotencyKey } from "./idempotency.js";
import type { Logger } from "./logger.js";
import { parsePostId, serializePost, validateCreate, validateUpdate } from "./post.js";
import type { PostRepository } from "./repository.js";

/** The routes that name one post: `/api/post/{post_pk}`. */
const ONE_POST = { pathParameter: "post_pk" };

/** GET /api/post → every post, ascending by id (304 when If-None-Match names that list). */
export const listPosts = (posts: PostRepository, log: Logger) =>
  httpHandler(async (request) => {
    const { json, etag, encoded } = await posts.listJson(request.signal);
    return okUnlessHeld(json, etag, request.header("if-none-match"), encoded);
  }, log);

/** GET /api/post/{post_pk} → the post (304 when If-None-Match names it), or 404. */
export const getPost = (posts: PostRepository, log: Logger) =>
  httpHandler(
    async (request) => {
      const id = parsePostId(request.pathId);
      const post = await posts.get(id, request.signal);
      if (!post) throw new NotFoundError(id);
      const json = JSON.stringify(serializePost(post));
      return okUnlessHeld(json, etagOf(json), request.header("if-none-match"));
    },
    log,
    ONE_POST,
  );

/** POST /api/post → 201 with the new post (at most once per Idempotency-Key). */
export const createPost = (posts: PostRepository, log: Logger) =>
  httpHandler(async (request) => {
    const payload = request.jsonObject();
    const input = validateCreate(payload);
    const key = request.header("idempotency-key");
    const post =
      key === undefined
        ? await posts.create(input, request.signal)
        : await posts.createOnce(
            input,
            { key: parseIdempotencyKey(key), fingerprint: fingerprintPayload(payload) },
            request.signal,
          );
    return created(serializePost(post), `/api/post/${post.id}`);
  }, log);

/** PUT /api/post/{post_pk} → the updated post, or 404. */
export const updatePost = (posts: PostRepository, log: Logger) =>
  httpHandler(
    async (request) => {
      const id = parsePostId(request.pathId);
      const changes = validateUpdate(request.jsonObject());
      return ok(serializePost(await posts.update(id, changes, request.signal)));
    },
    log,
    ONE_POST,
  );

/** DELETE /api/post/{post_pk} → 204, whether or not the post existed. */
export const deletePost = (posts: PostRepository, log: Logger) =>
  httpHandler(
    async (request) => {
      const id = parsePostId(request.pathId);
      await posts.delete(id, request.signal);
      return noContent(`Blog post #${id} deleted`);
    },
    log,
    ONE_POST,
  );
