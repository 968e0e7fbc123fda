// The commands' way to a service of this API: the typed client (client/), patient enough for a
// long copy, with the failures that stop a whole run turned into one line that says what to do.
import { ApiError, NotJsonError, UnreachableError } from "../../client/errors.mjs";
import { StopError, importWithPackages } from "./cli.mjs";

/**
 * @typedef {ReturnType<typeof import("../../client/index.mjs").createBlogClient>} BlogClient
 * @typedef {{ blog: BlogClient, root: string, name: string, token?: string, retries: number }} Service
 */

/**
 * A client of the service at `url`; `name` says which in messages ("The target"), `retries`
 * counts the calls sent again. A call is tried 8 times by default, after each Retry-After or
 * backoff, so that a service under load is waited for; a paused stage is not (see isPaused).
 * @param {string} url
 * @param {{ name: string, token?: string, attempts?: number, timeoutMs?: number }} options
 * @returns {Promise<Service>}
 */
export async function connect(url, { name, token, attempts = 8, timeoutMs }) {
  // The client needs the project's packages (openapi-fetch): without them, one line.
  /** @type {typeof import("../../client/index.mjs")} */
  const { createBlogClient } = await importWithPackages(
    new URL("../../client/index.mjs", import.meta.url).href,
  );
  const onRetry = () => void service.retries++;
  const blog = createBlogClient({ baseUrl: url, token, retry: { attempts }, timeoutMs, onRetry });
  const service = { name, token, retries: 0, root: blog.baseUrl, blog };
  return service;
}

/**
 * Runs `call` on the service; a failure no later call could get past (nothing answers, it is not
 * a service of this API, the token is missing or refused, the stage is paused) becomes a StopError.
 * @template T
 * @param {Service} service
 * @param {(blog: BlogClient) => Promise<T>} call
 * @returns {Promise<T>}
 */
export async function using(service, call) {
  const { name, root, token } = service;
  try {
    return await call(service.blog);
  } catch (error) {
    if (error instanceof UnreachableError) {
      throw new StopError(`${name} ${root} cannot be reached: ${error.reason}`);
    }
    if (error instanceof NotJsonError) {
      const status = error.status === undefined ? "" : `${error.status} and `;
      throw new StopError(
        `${name} answered ${error.method} ${error.url} with ${status}a body that is not JSON: is it a service of this API?`,
      );
    }
    if (!(error instanceof ApiError)) throw error;
    const { status, method, url } = error;
    const answered = `${name} ${root} answered ${status} to ${method} ${new URL(url).pathname}`;
    if (isPaused(error)) throw new StopError(`${answered}: ${error.detail}`);
    if (status !== 401 && status !== 403) throw error;
    const why = token
      ? "the token was refused (expired, or without the write scope?)"
      : "it needs a token: pass --token T or set API_TOKEN";
    throw new StopError(`${answered}: ${why}`);
  }
}

/**
 * Whether `error` is a paused stage's answer: a 503 that says when to come back (Retry-After, at
 * the month's end), still there after the client's retries. Every later call would get the same.
 */
export const isPaused = (/** @type {unknown} */ error) =>
  error instanceof ApiError && error.status === 503 && error.response.headers.has("retry-after");

/**
 * Whether `error` is the service's answer with this status (404, 409 …).
 * @returns {error is ApiError}
 */
export const isAnswer = (/** @type {unknown} */ error, /** @type {number} */ status) =>
  error instanceof ApiError && error.status === status;

/** An answer's failure in a few words: `404 Blog post #7 not found`. */
export function reasonOf(/** @type {unknown} */ error) {
  if (error instanceof ApiError) return `${error.status} ${error.detail}`;
  throw error;
}
