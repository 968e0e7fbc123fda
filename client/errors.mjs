// What a call of the client can fail with: one class per way, each with a message that is one
// line a person can act on. Nothing else is thrown, so `catch (error)` can test `instanceof`.

/** Every failure of a call: the service refused, could not be reached, or is not this API. */
export class BlogClientError extends Error {
  /**
   * @param {string} message
   * @param {{ method: string, url: string, cause?: unknown }} call
   */
  constructor(message, { method, url, cause }) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    /** The request's method. */
    this.method = method;
    /** The URL the request was sent to. */
    this.url = url;
  }
}

/** The service answered with an error: its status and the `detail` it gave. */
export class ApiError extends BlogClientError {
  /**
   * @param {{ method: string, url: string, status: number, detail: string, body: unknown, response: Response }} answer
   */
  constructor({ method, url, status, detail, body, response }) {
    super(`${method} ${url} answered ${status}: ${detail}`, { method, url });
    /** The HTTP status, 400 to 599. */
    this.status = status;
    /** The service's `detail`: what was wrong, in words. */
    this.detail = detail;
    /** The body as it came, parsed when it was JSON: `{ detail }` from this API. */
    this.body = body;
    /** The answer itself, its body read (for its headers, such as Retry-After). */
    this.response = response;
  }
}

/** No answer: refused, reset, unresolvable, or not within the time limit, after every retry. */
export class UnreachableError extends BlogClientError {
  /**
   * @param {{ method: string, url: string, reason: string, cause: unknown }} failure
   */
  constructor({ method, url, reason, cause }) {
    super(`${method} ${url}: the service cannot be reached (${reason})`, { method, url, cause });
    /** Why, in a word or two: a system error code such as ECONNREFUSED, or the time limit. */
    this.reason = reason;
  }
}

/** An answer whose body is not the JSON this API sends: some other server is at that address. */
export class NotJsonError extends BlogClientError {
  /**
   * @param {{ method: string, url: string, status?: number, cause?: unknown }} answer
   */
  constructor({ method, url, status, cause }) {
    super(
      `${method} ${url} answered ${status === undefined ? "" : `${status} `}with a body that ` +
        "is not this API's JSON: is the base URL a service of this API?",
      { method, url, cause },
    );
    /** The HTTP status of the answer, when known (a success's body is parsed after its status). */
    this.status = status;
  }
}
