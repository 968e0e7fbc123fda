// Use cases: the five operations as API Gateway handlers, each built over a repository and a
// logger. Importing this module builds nothing; lib/runtime.ts wires it, handlers/ exposes it.
import { NotFoundError } from "./errors.js";
import { created, httpHandler, noContent, ok } from "./http.js";
import { fingerprintPayload, parseIdempotencyKey } from "./idempotency.js";
import type { Logger } from "./logger.js";
import { parsePostId, serializePost, validateCreate, validateUpdate } from "./post.js";
import type { PostRepository } from "./repository.js";

/** GET /api/post → every post, ascending by id. */
export const listPosts = (posts: PostRepository, log: Logger) =>
  httpHandler(async () => ok((await posts.list()).map(serializePost)), log);

/** GET /api/post/{post_pk} → the post, or 404. */
export const getPost = (posts: PostRepository, log: Logger) =>
  httpHandler(async (request) => {
    const id = parsePostId(request.postId);
    const post = await posts.get(id);
    if (!post) throw new NotFoundError(id);
    return ok(serializePost(post));
  }, log);

/** POST /api/post → 201 with the new post (at most once per Idempotency-Key). */
export const createPost = (posts: PostRepository, log: Logger) =>
  httpHandler(async (request) => {
    const payload = request.jsonObject();
    const input = validateCreate(payload);
    const key = request.header("idempotency-key");
    const post =
      key === undefined
        ? await posts.create(input)
        : await posts.createOnce(input, {
            key: parseIdempotencyKey(key),
            fingerprint: fingerprintPayload(payload),
          });
    return created(serializePost(post), `/api/post/${post.id}`);
  }, log);

/** PUT /api/post/{post_pk} → the updated post, or 404. */
export const updatePost = (posts: PostRepository, log: Logger) =>
  httpHandler(async (request) => {
    const id = parsePostId(request.postId);
    const changes = validateUpdate(request.jsonObject());
    return ok(serializePost(await posts.update(id, changes)));
  }, log);

/** DELETE /api/post/{post_pk} → 204, whether or not the post existed. */
export const deletePost = (posts: PostRepository, log: Logger) =>
  httpHandler(async (request) => {
    const id = parsePostId(request.postId);
    await posts.delete(id);
    return noContent(`Blog post #${id} deleted`);
  }, log);
