// The five operations as API Gateway handlers, each built over a repository and a logger.
// Importing this module builds nothing; lib/app/runtime.ts wires it, handlers/ exposes it.
import { PostNotFoundError } from "../posts/errors.js";
import { etagOf } from "../posts/etag.js";
import { fingerprintPayload, parseIdempotencyKey } from "../posts/idempotency-key.js";
import { parsePostId, serializePost, validateCreate, validateUpdate } from "../posts/post.js";
import { type PostRepository, type PostStorage, forRequest } from "../posts/repository.js";
import type { Compress } from "./compress.js";
import { type ApiHandler, httpHandler } from "./handler.js";
import type { Logger } from "./logger.js";
import type { BusinessStep, RouteOptions } from "./pipeline.js";
import type { ApiRequest } from "./request.js";
import type { SpendGuard } from "./spending.js";
import { type Reply, created, noContent, ok, okUnlessHeld, outgoing } from "./response.js";
import { streamedHandler } from "./stream.js";

/** A route's work over the repository, for one request. */
type RouteStep = (posts: PostRepository, request: ApiRequest) => Promise<Reply>;
type Wrap = (step: BusinessStep, logger: Logger, options: RouteOptions) => ApiHandler;

/**
 * A route's handler factory: `step` over storage bound to each request, wrapped as `wrap` answers (buffered or
 * streamed), the path parameter `{post_pk}` shown to it when it names one post.
 */
const route =
  (step: RouteStep, { onePost = false, wrap = httpHandler as Wrap } = {}) =>
  (
    storage: PostStorage,
    logger: Logger,
    corsOrigins: readonly string[] = [],
    compress?: Compress,
    spend?: SpendGuard,
  ) =>
    // Storage is bound to the request once: the step passes domain arguments only.
    wrap((request) => step(forRequest(storage, request.scope), request), logger, {
      pathParameter: onePost ? "post_pk" : undefined,
      corsOrigins,
      compress,
      spend,
    });

/** The list as storage keeps it, as a 200 (or 304 when If-None-Match names it). */
async function listReply(posts: PostRepository, ifNoneMatch?: string) {
  const { json, etag, bytes } = await posts.listJson();
  return okUnlessHeld(json, etag, ifNoneMatch, bytes);
}

/**
 * GET /api/post → every post, ascending by id (304 when If-None-Match names that list),
 * streamed where the runtime streams: the list has no size limit but the stream's.
 */
export const listPosts = /* @__PURE__ */ route(
  (posts, request) => listReply(posts, request.header("if-none-match")),
  { wrap: streamedHandler },
);

/**
 * The first list's work, done at init (lib/app/runtime.ts): the list body, kept by storage's list
 * cache, and its gzip, kept by `compress`, the list handler's memo, so the first list answers as
 * a warm one does.
 */
export async function prepareList(storage: PostStorage, signal: AbortSignal, compress: Compress) {
  await outgoing(await listReply(forRequest(storage, { signal })), true, compress);
}

/** GET /api/post/{post_pk} → the post (304 when If-None-Match names it), or 404. */
export const getPost = /* @__PURE__ */ route(
  async (posts, request) => {
    const id = parsePostId(request.pathId);
    const post = await posts.get(id);
    if (!post) throw new PostNotFoundError(id);
    const json = JSON.stringify(serializePost(post));
    return okUnlessHeld([json], etagOf(json), request.header("if-none-match"));
  },
  { onePost: true },
);

/** POST /api/post → 201 with the new post (at most once per Idempotency-Key). */
export const createPost = /* @__PURE__ */ route(async (posts, request) => {
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
  // Under the path the request came through: the stage's name or a base path included.
  return created(serializePost(post), `${request.path}/${post.id}`);
});

/** PUT /api/post/{post_pk} → the updated post, or 404. */
export const updatePost = /* @__PURE__ */ route(
  async (posts, request) => {
    const id = parsePostId(request.pathId);
    const changes = validateUpdate(request.jsonObject());
    return ok(serializePost(await posts.update(id, changes)));
  },
  { onePost: true },
);

/** DELETE /api/post/{post_pk} → 204, whether or not the post existed. */
export const deletePost = /* @__PURE__ */ route(
  async (posts, request) => {
    const id = parsePostId(request.pathId);
    await posts.delete(id);
    return noContent(`Blog post #${id} deleted`);
  },
  { onePost: true },
);
