// What can go wrong with a post, in the domain's words. No status here: lib/http/errors.ts maps
// each class to the status and `detail` a client sees.

/** An error whose message is safe to show a client. */
export class DomainError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The request itself is wrong: its body, its path id or a field's value. */
export class ValidationError extends DomainError {}

/** The body, or one of its fields, is larger than the service accepts. */
export class TooLargeError extends DomainError {}

/** No post has the requested id. */
export class PostNotFoundError extends DomainError {
  constructor(id: number) {
    super(`Blog post #${id} not found`);
  }
}

/** Create asked for an id a post already has. */
export class PostExistsError extends DomainError {
  constructor(id: number) {
    super(`Blog post #${id} already exists`);
  }
}

/** Storage refused or failed a call; `description` names no table, account or ARN. */
export class StorageError extends DomainError {
  constructor(description: string, options?: ErrorOptions) {
    super(`DB ERROR: ${description}`, options);
  }
}

/** Why a create with an Idempotency-Key was refused. */
export type IdempotencyRefusal = "disabled" | "reused" | "in-progress";

const REFUSALS: Record<IdempotencyRefusal, string> = {
  disabled: "Idempotency-Key is not enabled on this deployment",
  reused: "Idempotency-Key was already used with a different request body",
  "in-progress": "A request with this Idempotency-Key is still in progress; retry shortly",
};

/** A create with an Idempotency-Key that cannot run now, or never will. */
export class IdempotencyError extends DomainError {
  constructor(readonly refusal: IdempotencyRefusal) {
    super(REFUSALS[refusal]);
  }
}
