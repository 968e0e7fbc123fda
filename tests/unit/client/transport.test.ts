// Unit: the client's retries: Retry-After as seconds or a date, a jittered backoff doubling up to
// its maximum, and which answers are sent again, over a fetch that answers as scripted (a real
// service cannot be made to answer a 409 in progress at will).
import { describe, expect, it } from "vitest";
import { type ApiError, createBlogClient } from "../../../client/index.mjs";
import { DEFAULT_RETRY, backoffMs, retryAfterMs } from "../../../client/transport.mjs";

describe("Retry-After and backoff", () => {
  it.each([
    ["2", 2000],
    ["0", 0],
    ["Wed, 21 Oct 2015 07:28:05 GMT", 5000],
    ["soon", undefined],
    [null, undefined],
  ])("Retry-After %j waits %j ms", (header, expected) => {
    expect(retryAfterMs(header, Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"))).toBe(expected);
  });

  it("doubles its ceiling each attempt up to the maximum, jittered below it", () => {
    const { baseDelayMs, maxDelayMs } = DEFAULT_RETRY;
    const at = (attempt: number, random = 1) => backoffMs(attempt, DEFAULT_RETRY, () => random);
    expect([at(0), at(3), at(30)]).toEqual([baseDelayMs, 8 * baseDelayMs, maxDelayMs]);
    expect(at(3, 0.5)).toBe(4 * baseDelayMs);
  });
});

describe("what is sent again", () => {
  /** A fetch that answers each call with the next of `answers`, and keeps what it was sent. */
  function scripted(...answers: [number, Record<string, string>?][]) {
    const sent: Headers[] = [];
    const fetch: typeof globalThis.fetch = async (_url, init) => {
      sent.push(new Headers(init?.headers));
      const [status, headers = {}] = answers[sent.length - 1] ?? [500];
      const post = { id: 1, title: "t", content: "c", created_at: null, updated_at: null };
      const body = status === 201 ? post : { detail: `answer ${sent.length}` };
      const json = { "content-type": "application/json" };
      return new Response(JSON.stringify(body), { status, headers: { ...json, ...headers } });
    };
    const retry = { baseDelayMs: 1, maxDelayMs: 1 };
    return { blog: createBlogClient({ baseUrl: "http://service.test", fetch, retry }), sent };
  }

  it("a create whose key its first request still holds (409 with Retry-After), with the same key", async () => {
    const { blog, sent } = scripted([409, { "retry-after": "0" }], [201]);
    const created = await blog.createPost({ title: "t", content: "c" });
    expect(created.response.status).toBe(201);
    expect(sent).toHaveLength(2);
    expect(sent[1]?.get("idempotency-key")).toBe(sent[0]?.get("idempotency-key"));
  });

  it("not a 409 without Retry-After: a taken id stays taken", async () => {
    const { blog, sent } = scripted([409], [201]);
    const taken = blog.createPost({ id: 1, title: "t", content: "c" });
    await expect(taken).rejects.toMatchObject({ status: 409, detail: "answer 1" });
    expect(sent).toHaveLength(1);
  });

  // A stage paused at its spending limit answers 503 with the seconds left in the month.
  const maxSeconds = DEFAULT_RETRY.maxRetryAfterMs / 1000;
  const monthAway = new Date(Date.now() + 31 * 86_400_000).toUTCString();
  it.each([
    ["2678400 s, a paused stage's month", "2678400", ["503 answer 1", 1]],
    ["a date a month away", monthAway, ["503 answer 1", 1]],
    ["a second past the longest pause", String(maxSeconds + 1), ["503 answer 1", 1]],
    ["0 s", "0", [200, 2]],
    ["none", undefined, [200, 2]],
  ])("a 503 whose Retry-After is %s: final, or sent again", async (_, retryAfter, expected) => {
    const headers = retryAfter === undefined ? undefined : { "retry-after": retryAfter };
    const { blog, sent } = scripted([503, headers], [200]);
    const outcome = await blog.getPost(1).then(
      (read) => read.response.status,
      (error: ApiError) => `${error.status} ${error.detail}`,
    );
    expect([outcome, sent.length]).toEqual(expected);
  });

  it("not after the caller aborts: a pause of a minute ends with the abort", async () => {
    const { blog, sent } = scripted([503, { "retry-after": "60" }], [200]);
    const started = Date.now();
    const call = blog.listPosts({ signal: AbortSignal.timeout(50) });
    await expect(call).rejects.toMatchObject({ name: "TimeoutError" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(sent).toHaveLength(1);
  });

  it("not a create without its key, which could then be made twice", async () => {
    const { blog, sent } = scripted([503], [201]);
    const { error } = await blog.api.POST("/api/post", { body: { title: "t", content: "c" } });
    expect(error).toEqual({ detail: "answer 1" });
    expect(sent).toHaveLength(1);
  });
});
