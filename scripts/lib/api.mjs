// The commands' way to a service of this API: the typed client (client/), patient enough for a
// long copy, with the failures that stop a whole run turned into one line that says what to do.
import { ApiError, NotJsonError, UnreachableError } from "../../client/errors.mjs";
import { StopError, importWithPackages } from "./cli.mjs";

/**
 * @typedef {ReturnType<typeof import("../../client/index.mjs").createBlogClient>} BlogClient
 * @typedef {{ blog: BlogClient, root: string, name: string, token?: string, retries: number }} Service
 */

/** Attempts per call: a service under load gets 7 retries, each after a Retry-After or backoff. */
export const ATTEMPTS = 8;

/** The client (it needs the project's packages, openapi-fetch: without them, one line). */
const client = async () =>
  /** @type {typeof import("../../client/index.mjs")} */ (
    await importWithPackages(new URL("../../client/index.mjs", import.meta.url).href)
  );

/**
 * A client of the service at `url` for a command; `name` says which service in messages ("The
 * target"), and `retries` counts the calls sent again.
 * @param {string} url
 * @param {{ name: string, token?: string, attempts?: number, timeoutMs?: number }} options
 * @returns {Promise<Service>}
 */
export async function connect(url, { name, token, attempts = ATTEMPTS, timeoutMs }) {
  const { createBlogClient } = await client();
  /** @type {Service} */
  const service = {
    name,
    token,
    retries: 0,
    root: "",
    blog: createBlogClient({
      baseUrl: url,
      token,
      retry: { attempts },
      timeoutMs,
      onRetry: () => void service.retries++,
    }),
  };
  service.root = service.blog.baseUrl;
  return service;
}

/**
 * Runs `call` on the service; a failure that no later call could get past (nothing answers, it
 * is not a service of this API, the token is missing or refused) becomes a StopError. An
 * ApiError of any other status is the caller's to handle.
 * @template T
 * @param {Service} service
 * @param {(blog: BlogClient) => Promise<T>} call
 * @returns {Promise<T>}
 */
export async function using(service, call) {
  try {
    return await call(service.blog);
  } catch (error) {
    if (error instanceof UnreachableError) {
      throw new StopError(`${service.name} ${service.root} cannot be reached: ${error.reason}`);
    }
    if (error instanceof NotJsonError) {
      throw new StopError(
        `${service.name} answered ${error.method} ${error.url} with ` +
          `${error.status === undefined ? "" : `${error.status} and `}a body that is not JSON: ` +
          "is it a service of this API?",
      );
    }
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      const path = new URL(error.url).pathname;
      throw new StopError(
        `${service.name} ${service.root} answered ${error.status} to ${error.method} ${path}: ` +
          (service.token
            ? "the token was refused (expired, or without the write scope?)"
            : "it needs a token: pass --token T or set API_TOKEN"),
      );
    }
    throw error;
  }
}

/** Whether `error` is the service's answer with this status (404, 409 …). */
export function isAnswer(/** @type {unknown} */ error, /** @type {number} */ status) {
  return error instanceof ApiError && error.status === status;
}

/** An answer's failure in a few words: `404 Blog post #7 not found`. */
export function reasonOf(/** @type {unknown} */ error) {
  if (error instanceof ApiError) return `${error.status} ${error.detail}`;
  throw error;
}
