// Unit: the one table from error to answer: each domain error's status and detail, and a bare
// 500 for anything else.
import { describe, expect, it } from "vitest";
import { httpHandler } from "../../../lib/http/handler.js";
import {
  DomainError,
  IdempotencyError,
  PostExistsError,
  PostNotFoundError,
  StorageError,
  TooLargeError,
  ValidationError,
} from "../../../lib/posts/errors.js";
import { invoke } from "../../helpers/events.js";
import { recordingLogger } from "../../helpers/handlers.js";

const failWith = (error: unknown) =>
  httpHandler(async () => Promise.reject(error), recordingLogger().logger);

const SLOW = "ProvisionedThroughputExceededException: slow down";
const IN_PROGRESS = "A request with this Idempotency-Key is still in progress; retry shortly";
const REUSED = "Idempotency-Key was already used with a different request body";

describe("error mapping", () => {
  it.each([
    [new ValidationError("bad"), 400, "bad"],
    [new PostNotFoundError(9), 404, "Blog post #9 not found"],
    [new PostExistsError(9), 409, "Blog post #9 already exists"],
    [new IdempotencyError("disabled"), 400, "Idempotency-Key is not enabled on this deployment"],
    [new IdempotencyError("in-progress"), 409, IN_PROGRESS],
    [new IdempotencyError("reused"), 422, REUSED],
    [new TooLargeError("big"), 413, "big"],
    [new StorageError(SLOW), 500, `DB ERROR: ${SLOW}`],
    // A subclass answers as the class it extends.
    [new (class TitleTooLong extends ValidationError {})("long"), 400, "long"],
    [new (class Gone extends PostNotFoundError {})(7), 404, "Blog post #7 not found"],
    [new TypeError("x is undefined at /var/task/index.mjs:1"), 500, "Internal server error"],
    // A domain error the table has no row for is not shown either.
    [new DomainError("unmapped"), 500, "Internal server error"],
    ["a thrown string", 500, "Internal server error"],
  ])("%s → %i", async (error, status, detail) => {
    const response = await invoke(failWith(error), { method: "GET" });
    expect(response.status).toBe(status);
    expect(response.body).toStrictEqual({ detail });
    // Only the refusal that the same request sent again later resolves says when to send it.
    const retry = error instanceof IdempotencyError && error.refusal === "in-progress";
    expect(response.headers).toEqual({
      "content-type": "application/json",
      "x-content-type-options": "nosniff",
      "cache-control": "no-store",
      ...(retry ? { "retry-after": "1" } : {}),
    });
  });

  it("logs the stack of an unexpected error but never returns it", async () => {
    const { logger, lines } = recordingLogger();
    const step = async () => Promise.reject(new RangeError("boom"));
    const handler = httpHandler(step, logger, { pathParameter: "post_pk" });
    const response = await invoke(handler, { method: "GET", postId: "4" });
    expect(JSON.stringify(response.body)).not.toContain("boom");
    const error = {
      name: "RangeError",
      message: "boom",
      stack: expect.stringContaining("RangeError: boom"),
    };
    const fields = { status: 500, error, postId: "4", route: "GET /api/post/{post_pk}" };
    expect(lines).toMatchObject([{ level: "error", fields }]);
  });
});
