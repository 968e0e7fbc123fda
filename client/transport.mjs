// The one fetch every call goes through: the bearer token, a time limit per attempt, and a
// polite retry of what is safe to send again (429, 5xx, a create still in progress, no answer), with capped exponential
// backoff and full jitter that honours Retry-After; a 503 asking for a longer wait than the
// longest pause is final. A failure leaves here as a BlogClientError.
import { NotJsonError, UnreachableError } from "./errors.mjs";

/**
 * @typedef {object} RetryPolicy
 * @property {number} attempts Attempts per call, the first included; 1 sends once.
 * @property {number} baseDelayMs The first pause's ceiling; each later one doubles.
 * @property {number} maxDelayMs The longest pause between attempts.
 * @property {number} maxRetryAfterMs The longest Retry-After honoured as it is: a 503 asking
 *   for longer is final, any other answer asking for longer is sent again after this long.
 *
 * @typedef {object} TransportOptions
 * @property {string | (() => string | undefined | Promise<string | undefined>)} [token]
 *   The bearer token, or a function asked before every attempt (for a token that is renewed).
 * @property {Partial<RetryPolicy>} [retry]
 * @property {number} [timeoutMs] How long one attempt may wait for the answer's status and
 *   headers, connection included; its body may take longer (a large list streams for minutes).
 * @property {typeof fetch} [fetch] The fetch to send with; the platform's by default.
 * @property {(retry: { attempt: number, method: string, url: string, why: string }) => void} [onRetry]
 *   Told before each pause, for a caller that counts or shows retries.
 */

/** @type {RetryPolicy} */
export const DEFAULT_RETRY = {
  attempts: 5,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
};
export const DEFAULT_TIMEOUT_MS = 30_000;

/** A pause that the caller's abort ends at once, with the abort's reason. */
const sleep = (/** @type {number} */ ms, /** @type {AbortSignal} */ signal) =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** Retry-After as milliseconds (seconds, or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(/** @type {string | null} */ header, now = Date.now()) {
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The pause before attempt `attempt + 1`: full jitter under a doubling, capped ceiling. */
export function backoffMs(
  /** @type {number} */ attempt,
  /** @type {RetryPolicy} */ policy = DEFAULT_RETRY,
  random = Math.random,
) {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(random() * ceiling);
}

/**
 * An answer that the same request sent again later may not get: too many requests, a failure of
 * the service, or a create whose Idempotency-Key its first request still holds (a 409 that says
 * when to retry; the 409 of a taken id does not).
 */
const transient = (/** @type {Response} */ response) =>
  response.status === 429 ||
  response.status >= 500 ||
  (response.status === 409 && response.headers.has("retry-after"));

/**
 * A 503 whose Retry-After is past the longest pause: a stage paused at its spending limit, which
 * lifts at the month's end. No retry within one call would outlast it, so the answer is final.
 */
const pausedBeyond = (
  /** @type {Response} */ response,
  /** @type {number | undefined} */ asked,
  /** @type {RetryPolicy} */ policy,
) => response.status === 503 && asked !== undefined && asked > policy.maxRetryAfterMs;

/**
 * A create may be sent again only with its Idempotency-Key: the service then answers the first
 * outcome instead of making a second post. Every other operation is safe to repeat as it is.
 */
const repeatable = (/** @type {Request} */ request) =>
  request.method !== "POST" || request.headers.has("idempotency-key");

/** A fetch for openapi-fetch that adds the token, retries and turns failures into typed errors. */
export function transport(/** @type {TransportOptions} */ options = {}) {
  // A setting given as undefined keeps its default, or `attempts: undefined` would never stop.
  const given = Object.entries(options.retry ?? {}).filter(([, value]) => value !== undefined);
  const policy = { ...DEFAULT_RETRY, ...Object.fromEntries(given) };
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const send = options.fetch ?? globalThis.fetch.bind(globalThis);

  /** @param {Request} request */
  return async function politeFetch(request) {
    const { method, url } = request;
    // Read once, so every attempt sends the same bytes.
    const body = method === "GET" || method === "HEAD" ? undefined : await request.arrayBuffer();
    const token = typeof options.token === "function" ? undefined : options.token;
    for (let attempt = 0; ; attempt++) {
      const last = attempt + 1 >= policy.attempts || !repeatable(request);
      const headers = new Headers(request.headers);
      const bearer = token ?? (typeof options.token === "function" ? await options.token() : "");
      if (bearer && !headers.has("authorization")) headers.set("authorization", `Bearer ${bearer}`);
      // The time limit runs until the status and headers arrive, then stops: the signal also
      // governs the body, which a large list takes longer to send.
      const limit = new AbortController();
      const timer = setTimeout(
        () => limit.abort(new DOMException("no answer in time", "TimeoutError")),
        timeoutMs,
      );
      const signal = AbortSignal.any([request.signal, limit.signal]);
      /** @type {Response} */
      let response;
      try {
        response = await send(url, { method, headers, body, signal, redirect: request.redirect });
      } catch (error) {
        clearTimeout(timer);
        // The caller's own abort is not a failure of the service: it leaves as it came.
        if (request.signal.aborted) throw request.signal.reason;
        const reason = describeFailure(error, timeoutMs);
        if (last) throw new UnreachableError({ method, url, reason, cause: error });
        await pause(attempt, reason);
        continue;
      }
      clearTimeout(timer);
      const asked = retryAfterMs(response.headers.get("retry-after"));
      if (transient(response) && !last && !pausedBeyond(response, asked, policy)) {
        // An answer already cut off cannot be cancelled; it is sent again all the same.
        await response.body?.cancel().catch(() => undefined);
        await pause(attempt, `answered ${response.status}`, asked);
        continue;
      }
      refuseForeign(response, method, url);
      return response;
    }

    async function pause(
      /** @type {number} */ attempt,
      /** @type {string} */ why,
      /** @type {number | undefined} */ asked = undefined,
    ) {
      options.onRetry?.({ attempt: attempt + 1, method, url, why });
      await sleep(
        asked === undefined ? backoffMs(attempt, policy) : Math.min(asked, policy.maxRetryAfterMs),
        request.signal,
      );
    }
  };
}

/**
 * Every answer of this API with a body is JSON, the gateway's included: anything else (an HTML
 * error page, a proxy's login form) is another server, and says so before its body is parsed.
 */
function refuseForeign(
  /** @type {Response} */ response,
  /** @type {string} */ method,
  /** @type {string} */ url,
) {
  if (response.status === 204 || response.status === 304) return;
  const type = response.headers.get("content-type") ?? "";
  if (/^application\/([\w.+-]+\+)?json\b/i.test(type)) return;
  void response.body?.cancel().catch(() => undefined);
  throw new NotJsonError({ method, url, status: response.status });
}

/** A fetch failure in a word or two: the cause's code (ECONNREFUSED …) when there is one. */
function describeFailure(/** @type {unknown} */ error, /** @type {number} */ timeoutMs) {
  if (!(error instanceof Error)) return String(error);
  if (error.name === "TimeoutError") return `no answer within ${timeoutMs / 1000} s`;
  const cause = /** @type {{ code?: string, message?: string } | undefined} */ (error.cause);
  return cause?.code ?? cause?.message ?? error.message;
}
