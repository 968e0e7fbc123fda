// The typed client of this API. openapi-fetch, typed by client/schema.d.ts (generated from
// openapi.yaml by `npm run client`), builds and sends every request; this layer adds only what the
// contract cannot say: one Idempotency-Key per create, kept on every retry; If-None-Match and its
// 304; the token; and a failure as a typed error carrying the service's `detail`.
import createFetchClient from "openapi-fetch";
import { ApiError, BlogClientError, NotJsonError } from "./errors.mjs";
import { transport } from "./transport.mjs";

export { ApiError, BlogClientError, NotJsonError, UnreachableError } from "./errors.mjs";
export { DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, backoffMs, retryAfterMs } from "./transport.mjs";

/**
 * @typedef {import("./schema.js").paths} paths
 * @typedef {import("./schema.js").components["schemas"]["Post"]} Post
 * @typedef {import("./schema.js").components["schemas"]["NewPost"]} NewPost
 * @typedef {import("./schema.js").components["schemas"]["PostChanges"]} PostChanges
 * @typedef {import("./transport.mjs").TransportOptions & { baseUrl: string }} ClientOptions
 * @typedef {{ ifNoneMatch?: string, signal?: AbortSignal }} ReadOptions
 * @typedef {{ idempotencyKey?: string, signal?: AbortSignal }} CreateOptions
 * @typedef {{ signal?: AbortSignal }} CallOptions
 * @typedef {{ notModified: true, etag: string, response: Response }} NotModified
 * @typedef {{ notModified: false, posts: Post[], etag: string, response: Response }} PostList
 * @typedef {{ notModified: false, body: ReadableStream<Uint8Array>, etag: string, response: Response }} PostListStream
 * @typedef {{ notModified: false, post: Post, etag: string, response: Response }} ReadPost
 * @typedef {{ post: Post, location: string, response: Response }} CreatedPost
 */

/**
 * A client for the service at `baseUrl`: `http://localhost:3000` locally, the stack's
 * ServiceEndpoint (stage included) on AWS; a trailing `/api/post` is taken off.
 * @param {ClientOptions} options
 */
export function createBlogClient(options) {
  const baseUrl = options.baseUrl.replace(/\/+$/, "").replace(/\/api\/post$/, "");
  /** The openapi-fetch client itself, for a request this layer has no method for. */
  const api = createFetchClient(
    /** @type {import("openapi-fetch").ClientOptions} */ ({
      baseUrl,
      fetch: transport(options),
      headers: { accept: "application/json" },
    }),
  );
  /** @type {import("openapi-fetch").Client<paths>} */
  const typed = /** @type {never} */ (api);

  /** What the service answered, or the typed error for it; a body that is not JSON too. */
  async function settle(
    /** @type {string} */ method,
    /** @type {string} */ path,
    /** @type {() => Promise<{ data?: unknown, error?: unknown, response: Response }>} */ send,
  ) {
    const url = `${baseUrl}${path}`;
    let result;
    try {
      result = await send();
    } catch (error) {
      if (error instanceof BlogClientError) throw error;
      // A success whose body claimed to be JSON and was not (openapi-fetch parsed it).
      if (error instanceof SyntaxError) throw new NotJsonError({ method, url, cause: error });
      throw error;
    }
    const { response } = result;
    if (response.status >= 400) {
      throw new ApiError({
        method,
        url,
        status: response.status,
        detail: detailOf(result.error, response),
        body: result.error,
        response,
      });
    }
    return { data: result.data, response };
  }

  /** If-None-Match as a header, when given. */
  const conditional = (/** @type {ReadOptions} */ { ifNoneMatch } = {}) =>
    ifNoneMatch === undefined ? {} : { "if-none-match": ifNoneMatch };

  /** A 304 as a result, and the ETag of a 200. */
  const notModified = (/** @type {Response} */ response) =>
    response.status === 304
      ? /** @type {NotModified} */ ({
          notModified: true,
          etag: response.headers.get("etag") ?? "",
          response,
        })
      : undefined;

  return {
    api: typed,
    baseUrl,

    /**
     * Every post, ascending by id; with `ifNoneMatch` the ETag of the list held, a 304 while
     * no post has changed.
     * @param {ReadOptions} [read]
     * @returns {Promise<PostList | NotModified>}
     */
    async listPosts(read = {}) {
      const { data, response } = await settle("GET", "/api/post", () =>
        typed.GET("/api/post", { headers: conditional(read), signal: read.signal }),
      );
      return (
        notModified(response) ?? {
          notModified: false,
          posts: /** @type {Post[]} */ (data),
          etag: response.headers.get("etag") ?? "",
          response,
        }
      );
    },

    /**
     * The list as it arrives, for a list too large to hold twice: the body's bytes, unparsed.
     * @param {ReadOptions} [read]
     * @returns {Promise<PostListStream | NotModified>}
     */
    async streamPosts(read = {}) {
      const { data, response } = await settle("GET", "/api/post", () =>
        typed.GET("/api/post", {
          headers: conditional(read),
          signal: read.signal,
          parseAs: "stream",
        }),
      );
      return (
        notModified(response) ?? {
          notModified: false,
          body: /** @type {ReadableStream<Uint8Array>} */ (data),
          etag: response.headers.get("etag") ?? "",
          response,
        }
      );
    },

    /**
     * One post; with `ifNoneMatch` its ETag, a 304 while it has not changed.
     * @param {number} id
     * @param {ReadOptions} [read]
     * @returns {Promise<ReadPost | NotModified>}
     */
    async getPost(id, read = {}) {
      const { data, response } = await settle("GET", `/api/post/${id}`, () =>
        typed.GET("/api/post/{post_pk}", {
          params: { path: { post_pk: id } },
          headers: conditional(read),
          signal: read.signal,
        }),
      );
      return (
        notModified(response) ?? {
          notModified: false,
          post: /** @type {Post} */ (data),
          etag: response.headers.get("etag") ?? "",
          response,
        }
      );
    },

    /**
     * Creates a post, once: every retry of this call sends the same Idempotency-Key (a new one
     * unless given), so a create whose answer was lost is answered again, not made twice.
     * @param {NewPost} post
     * @param {CreateOptions} [create]
     * @returns {Promise<CreatedPost>}
     */
    async createPost(post, { idempotencyKey = crypto.randomUUID(), signal } = {}) {
      const { data, response } = await settle("POST", "/api/post", () =>
        typed.POST("/api/post", {
          body: post,
          params: { header: { "Idempotency-Key": idempotencyKey } },
          signal,
        }),
      );
      return {
        post: /** @type {Post} */ (data),
        location: response.headers.get("location") ?? "",
        response,
      };
    },

    /**
     * Changes a post's title or content (the other fields are ignored); the post as it is now.
     * @param {number} id
     * @param {PostChanges} changes
     * @param {CallOptions} [call]
     * @returns {Promise<Post>}
     */
    async updatePost(id, changes, { signal } = {}) {
      const { data } = await settle("PUT", `/api/post/${id}`, () =>
        typed.PUT("/api/post/{post_pk}", {
          params: { path: { post_pk: id } },
          body: changes,
          signal,
        }),
      );
      return /** @type {Post} */ (data);
    },

    /**
     * Deletes a post: 204 whether or not it existed, so deleting twice is no error.
     * @param {number} id
     * @param {CallOptions} [call]
     * @returns {Promise<{ response: Response }>}
     */
    async deletePost(id, { signal } = {}) {
      const { response } = await settle("DELETE", `/api/post/${id}`, () =>
        typed.DELETE("/api/post/{post_pk}", { params: { path: { post_pk: id } }, signal }),
      );
      return { response };
    },
  };
}

/** The `detail` of an error body; API Gateway's default `message` when a gateway answered. */
function detailOf(/** @type {unknown} */ body, /** @type {Response} */ response) {
  const fields = /** @type {{ detail?: unknown, message?: unknown } | undefined} */ (
    typeof body === "object" && body !== null ? body : undefined
  );
  const detail = fields?.detail ?? fields?.message;
  return typeof detail === "string"
    ? detail
    : `HTTP ${response.status} ${response.statusText}`.trim();
}
