// Domain errors: each carries the HTTP status and the `detail` a client may see.

/** An error whose message is safe to show a client, with the status it maps to. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** 400: the request itself is wrong (body, path id, field values). */
export class BadRequestError extends HttpError {
  constructor(message: string) {
    super(400, message);
  }
}

/** 404: no post has the requested id. */
export class NotFoundError extends HttpError {
  constructor(id: number) {
    super(404, `Blog post #${id} not found`);
  }
}

/** 409: create asked for an id a post already has. */
export class ConflictError extends HttpError {
  constructor(id: number) {
    super(409, `Blog post #${id} already exists`);
  }
}

/** 413: the body or one of its fields is larger than the service accepts. */
export class PayloadTooLargeError extends HttpError {
  constructor(message: string) {
    super(413, message);
  }
}

/** 500 with `DB ERROR: …`: DynamoDB refused or failed a call; the message is already sanitized. */
export class StorageError extends HttpError {
  constructor(description: string, options?: ErrorOptions) {
    super(500, `DB ERROR: ${description}`, options);
  }
}
