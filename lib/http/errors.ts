// The one table from error to answer: every domain error's status, with its message as the
// `detail`; anything else is a bare 500 whose real cause goes only to the log.
import {
  type DomainError,
  IdempotencyError,
  type IdempotencyRefusal,
  PostExistsError,
  PostNotFoundError,
  StorageError,
  TooLargeError,
  ValidationError,
} from "../posts/errors.js";
import type { Reply } from "./response.js";

/**
 * Each domain error class and its status, most specific first: an error answers with the first
 * class it is an instance of, so a subclass of ValidationError is a 400 too.
 */
const STATUS_OF_CLASS: [abstract new (...args: never[]) => DomainError, number][] = [
  [ValidationError, 400],
  [PostNotFoundError, 404],
  [PostExistsError, 409],
  [TooLargeError, 413],
  [StorageError, 500],
];

/** Each way a create with an Idempotency-Key can be refused, and its status. */
const STATUS_OF_REFUSAL: Record<IdempotencyRefusal, number> = {
  disabled: 400,
  reused: 422,
  "in-progress": 409,
};

/** The status an error answers with, or undefined when it is not one a client may be told of. */
export function statusOf(error: unknown): number | undefined {
  if (error instanceof IdempotencyError) return STATUS_OF_REFUSAL[error.refusal];
  return STATUS_OF_CLASS.find(([errorClass]) => error instanceof errorClass)?.[1];
}

/**
 * How long a client should wait before sending again a create whose Idempotency-Key is still held
 * by its first request: that request ends within the function's time limit, and a retry within
 * its 15 s claim waits up to 5 s for it on the server before answering.
 */
export const IN_PROGRESS_RETRY_AFTER_S = 1;

/** The reply for an error: its status and message when the table knows it, else a bare 500. */
export function errorReply(error: unknown): Reply {
  const statusCode = statusOf(error);
  if (statusCode === undefined) {
    return { statusCode: 500, body: { detail: "Internal server error" } };
  }
  const reply: Reply = { statusCode, body: { detail: (error as Error).message } };
  // The one refusal that sending the same request again later resolves: say when.
  if (error instanceof IdempotencyError && error.refusal === "in-progress") {
    reply.headers = { "retry-after": String(IN_PROGRESS_RETRY_AFTER_S) };
  }
  return reply;
}
