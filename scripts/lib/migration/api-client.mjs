// A polite HTTP client for a service of this API: JSON in and out, a bearer token when given,
// and 429, 5xx and connection failures retried with capped exponential backoff and full jitter,
// honouring Retry-After.

/** A problem that stops the whole run: said in one line, exit code 2. */
export class StopError extends Error {}

/** How a request is retried. */
export const RETRY = {
  /** Attempts per request, the first included. */
  attempts: 8,
  /** The first pause's ceiling; each later one doubles, up to `maxDelayMs`. */
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  /** The longest Retry-After honoured; a longer one waits this long and tries again. */
  maxRetryAfterMs: 60_000,
  /** One attempt's time limit, connection included. */
  timeoutMs: 30_000,
};

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retry-After as milliseconds (seconds, or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(/** @type {string | null} */ header, now = Date.now()) {
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The pause before attempt `attempt + 1`: full jitter under a doubling ceiling. */
export function backoffMs(/** @type {number} */ attempt, random = Math.random) {
  const ceiling = Math.min(RETRY.maxDelayMs, RETRY.baseDelayMs * 2 ** attempt);
  return Math.round(random() * ceiling);
}

/**
 * @typedef {{ status: number, body: unknown, headers: Headers }} Answer
 * @typedef {{ retries: number }} Counters
 */

/** A client for the service at `base` (`http://host:port`, without `/api/post`). */
export function apiClient(
  /** @type {string} */ base,
  /** @type {{ token?: string, name: string }} */ { token, name },
) {
  const root = base.replace(/\/+$/, "").replace(/\/api\/post$/, "");
  /** @type {Counters} */
  const counters = { retries: 0 };

  /**
   * One request, retried while the answer is transient; the last response, its body unread. A
   * 401 or 403, or a service that cannot be reached, is a StopError.
   */
  async function send(
    /** @type {string} */ method,
    /** @type {string} */ path,
    /** @type {unknown} */ body = undefined,
  ) {
    const url = `${root}${path}`;
    for (let attempt = 0; ; attempt++) {
      const last = attempt + 1 >= RETRY.attempts;
      /** @type {Response} */
      let response;
      try {
        response = await fetch(url, {
          method,
          headers: {
            accept: "application/json",
            ...(body === undefined ? {} : { "content-type": "application/json" }),
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(RETRY.timeoutMs),
        });
      } catch (error) {
        const reason = describeFailure(error);
        if (last) throw new StopError(`${name} ${root} cannot be reached: ${reason}`);
        counters.retries++;
        await sleep(backoffMs(attempt));
        continue;
      }
      if ((response.status === 429 || response.status >= 500) && !last) {
        await response.arrayBuffer().catch(() => undefined);
        counters.retries++;
        const asked = retryAfterMs(response.headers.get("retry-after"));
        await sleep(
          asked === undefined ? backoffMs(attempt) : Math.min(asked, RETRY.maxRetryAfterMs),
        );
        continue;
      }
      if (response.status === 401 || response.status === 403) {
        throw new StopError(
          `${name} ${root} answered ${response.status} to ${method} ${path}: ` +
            (token
              ? "the token was refused (expired, or without the write scope?)"
              : "it needs a token: pass --token T or set API_TOKEN"),
        );
      }
      return response;
    }
  }

  /** One request, retried as `send` does, its answer's body read as JSON. */
  async function request(
    /** @type {string} */ method,
    /** @type {string} */ path,
    /** @type {unknown} */ body = undefined,
  ) {
    const response = await send(method, path, body);
    const url = `${root}${path}`;
    return {
      status: response.status,
      body: await readJson(response, method, url),
      headers: response.headers,
    };
  }

  /** Reads a JSON body; a non-JSON answer means this is not a service of this API. */
  async function readJson(
    /** @type {Response} */ response,
    /** @type {string} */ method,
    /** @type {string} */ url,
  ) {
    const text = await response.text();
    if (response.status === 204 && text === "") return undefined;
    try {
      return JSON.parse(text);
    } catch {
      throw new StopError(
        `${name} answered ${method} ${url} with ${response.status} and a body that is not JSON: ` +
          "is it a service of this API?",
      );
    }
  }

  return { root, counters, send, request, readJson };
}

/** One line for a fetch failure: the cause's code (ECONNREFUSED …) when there is one. */
function describeFailure(/** @type {unknown} */ error) {
  if (!(error instanceof Error)) return String(error);
  if (error.name === "TimeoutError") return `no answer within ${RETRY.timeoutMs / 1000} s`;
  const cause = /** @type {{ code?: string, message?: string } | undefined} */ (error.cause);
  return cause?.code ?? cause?.message ?? error.message;
}

/** The `detail` of an error answer, or its status when it has none. */
export function detailOf(/** @type {Answer} */ answer) {
  const body = /** @type {{ detail?: unknown, message?: unknown } | undefined} */ (answer.body);
  const detail = body?.detail ?? body?.message;
  return typeof detail === "string" ? `${answer.status} ${detail}` : `HTTP ${answer.status}`;
}
