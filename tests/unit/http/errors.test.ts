// Unit: the one table from error to answer: each domain error's status and detail, and a bare
// 500 for anything else.
import { describe, expect, it } from "vitest";
import { httpHandler } from "../../../lib/http/handler.js";
import { ok } from "../../../lib/http/response.js";
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

describe("error mapping", () => {
  it.each([
    [new ValidationError("bad"), 400, "bad"],
    [new PostNotFoundError(9), 404, "Blog post #9 not found"],
    [new PostExistsError(9), 409, "Blog post #9 already exists"],
    [new IdempotencyError("disabled"), 400, "Idempotency-Key is not enabled on this deployment"],
    [
      new IdempotencyError("in-progress"),
      409,
      "A request with this Idempotency-Key is still in progress; retry shortly",
    ],
    [
      new IdempotencyError("reused"),
      422,
      "Idempotency-Key was already used with a different request body",
    ],
    [new TooLargeError("big"), 413, "big"],
    [
      new StorageError("ProvisionedThroughputExceededException: slow down"),
      500,
      "DB ERROR: ProvisionedThroughputExceededException: slow down",
    ],
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
    expect(response.headers["content-type"]).toBe("application/json");
    expect(response.headers["x-content-type-options"]).toBe("nosniff");
    expect(response.headers["cache-control"]).toBe("no-store");
    // Only the refusal that the same request sent again later resolves says when to send it.
    expect(response.headers["retry-after"]).toBe(
      error instanceof IdempotencyError && error.refusal === "in-progress" ? "1" : undefined,
    );
  });

  it("logs the stack of an unexpected error but never returns it", async () => {
    const { logger, lines } = recordingLogger();
    const handler = httpHandler(
      async () => {
        throw new RangeError("boom");
      },
      logger,
      { pathParameter: "post_pk" },
    );
    const response = await invoke(handler, { method: "GET", postId: "4" });
    expect(JSON.stringify(response.body)).not.toContain("boom");
    expect(lines).toHaveLength(1);
    expect(lines[0]?.level).toBe("error");
    expect(lines[0]?.fields).toMatchObject({
      status: 500,
      error: { name: "RangeError", message: "boom" },
      postId: "4",
      route: "GET /api/post/{post_pk}",
    });
    const error = lines[0]?.fields?.error as { stack?: string };
    expect(String(error.stack)).toContain("RangeError: boom");
  });

  it("logs one info line with status and duration for a normal request", async () => {
    const { logger, lines } = recordingLogger();
    await invoke(
      httpHandler(async () => ok([]), logger),
      { method: "GET" },
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]?.fields).toMatchObject({ method: "GET", route: "GET /api/post", status: 200 });
    expect(typeof lines[0]?.fields?.durationMs).toBe("number");
  });
});
