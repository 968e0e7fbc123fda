import { gunzipSync } from "node:zlib";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { describe, expect, it } from "vitest";
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  PayloadTooLargeError,
  StorageError,
} from "../../lib/errors.js";
import { httpHandler } from "../../lib/http-handler.js";
import { BODY_MAX_BYTES } from "../../lib/http-request.js";
import {
  RESPONSE_MAX_BYTES,
  acceptsGzip,
  created,
  noContent,
  ok,
} from "../../lib/http-response.js";
import { IdempotencyError } from "../../lib/idempotent-create.js";
import type { Logger, LogFields } from "../../lib/logger.js";
import { sanitizeErrorMessage } from "../../lib/dynamodb.js";
import { apiEvent, invoke } from "../helpers/events.js";

function recordingLogger() {
  const lines: { level: string; message: string; fields?: LogFields }[] = [];
  const logger: Logger = {
    info: (message, fields) => lines.push({ level: "info", message, fields }),
    error: (message, fields) => lines.push({ level: "error", message, fields }),
  };
  return { logger, lines };
}

const failWith = (error: unknown) =>
  httpHandler(async () => Promise.reject(error), recordingLogger().logger);

describe("error mapping", () => {
  it.each([
    [new BadRequestError("bad"), 400, "bad"],
    [new NotFoundError(9), 404, "Blog post #9 not found"],
    [new ConflictError(9), 409, "Blog post #9 already exists"],
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
    [new PayloadTooLargeError("big"), 413, "big"],
    [
      new StorageError("ProvisionedThroughputExceededException: slow down"),
      500,
      "DB ERROR: ProvisionedThroughputExceededException: slow down",
    ],
    [new TypeError("x is undefined at /var/task/index.mjs:1"), 500, "Internal server error"],
    ["a thrown string", 500, "Internal server error"],
  ])("%s → %i", async (error, status, detail) => {
    const response = await invoke(failWith(error), { method: "GET" });
    expect(response.status).toBe(status);
    expect(response.body).toStrictEqual({ detail });
    expect(response.headers["content-type"]).toBe("application/json");
    expect(response.headers["x-content-type-options"]).toBe("nosniff");
    expect(response.headers["cache-control"]).toBe("no-store");
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

describe("replies", () => {
  it("sets location on 201 and keeps the detail on 204", async () => {
    const { logger } = recordingLogger();
    const made = await invoke(
      httpHandler(async () => created({ id: 1 }, "/api/post/1"), logger),
      { method: "POST", body: {} },
    );
    expect(made).toMatchObject({
      status: 201,
      headers: { location: "/api/post/1" },
      body: { id: 1 },
    });
    const gone = await invoke(
      httpHandler(async () => noContent("Blog post #1 deleted"), logger),
      { method: "DELETE", postId: "1" },
    );
    expect(gone).toMatchObject({ status: 204, body: { detail: "Blog post #1 deleted" } });
    for (const response of [made, gone]) {
      expect(response.headers["x-content-type-options"]).toBe("nosniff");
      // Successful answers may be cached by a client; only errors are marked no-store.
      expect(response.headers["cache-control"]).toBeUndefined();
    }
  });
});

describe("body parsing", () => {
  const echo = httpHandler(async (request) => ok(request.jsonObject()), recordingLogger().logger);

  it.each([
    ["no body", undefined, false, 400, "Request body is required"],
    ["invalid JSON", "{", false, 400, "Request body is not valid JSON"],
    ["a JSON array", "[]", false, 400, "Request body must be a JSON object"],
    ["JSON null", "null", false, 400, "Request body must be a JSON object"],
    ["a JSON string", '"x"', false, 400, "Request body must be a JSON object"],
    [
      "base64 of invalid UTF-8",
      Buffer.from([0xff, 0xfe]).toString("base64"),
      true,
      400,
      "Request body is not valid UTF-8",
    ],
    [
      "a body over the limit",
      `{"a":"${"x".repeat(BODY_MAX_BYTES)}"}`,
      false,
      413,
      `Request body must be at most ${BODY_MAX_BYTES} bytes`,
    ],
  ])("rejects %s", async (_label, body, isBase64Encoded, status, detail) => {
    const response = await invoke(echo, { method: "POST", body, isBase64Encoded });
    expect(response).toMatchObject({ status, body: { detail } });
  });

  it.each([false, 0, null])(
    "reads a body handed over as the JSON value %j like its text",
    async (value) => {
      const event = { ...apiEvent({ method: "POST" }), body: value as unknown as string };
      const response = (await echo(event)) as APIGatewayProxyStructuredResultV2;
      expect(response.statusCode).toBe(400);
    },
  );

  it("ignores a leading byte-order mark, in text and in base64 alike", async () => {
    const text = '\uFEFF{"title":"t"}';
    for (const [body, isBase64Encoded] of [
      [text, false],
      [Buffer.from(text).toString("base64"), true],
    ] as const) {
      const response = await invoke(echo, { method: "POST", body, isBase64Encoded });
      expect(response).toMatchObject({ status: 200, body: { title: "t" } });
    }
  });

  it("ignores only one byte-order mark, in text and in base64 alike", async () => {
    const text = '\uFEFF\uFEFF{"title":"t"}';
    for (const [body, isBase64Encoded] of [
      [text, false],
      [Buffer.from(text).toString("base64"), true],
    ] as const) {
      const response = await invoke(echo, { method: "POST", body, isBase64Encoded });
      expect(response).toMatchObject({
        status: 400,
        body: { detail: "Request body is not valid JSON" },
      });
    }
  });

  it("decodes a base64 body", async () => {
    const body = Buffer.from(JSON.stringify({ title: "é😀" })).toString("base64");
    const response = await invoke(echo, { method: "POST", body, isBase64Encoded: true });
    expect(response).toMatchObject({ status: 200, body: { title: "é😀" } });
  });
});

describe("sanitizeErrorMessage", () => {
  it("removes ARNs (of every partition), account ids and the table name", () => {
    const message =
      "User: arn:aws:sts::123456789012:assumed-role/x/y is not authorized on resource arn:aws:dynamodb:us-east-1:123456789012:table/prod-posts; table prod-posts, account 123456789012, in arn:aws-cn:dynamodb:cn-north-1:123456789012:table/prod-posts";
    expect(sanitizeErrorMessage(message, ["prod-posts"])).toBe(
      "User: <arn> is not authorized on resource <arn>; table <table>, account <account>, in <arn>",
    );
  });

  it("leaves a message alone when a table name is not set", () => {
    expect(sanitizeErrorMessage("the key is undefined here", [undefined, ""])).toBe(
      "the key is undefined here",
    );
  });

  it("replaces a short table name only where it stands as a whole name", () => {
    const message = "connect ECONNREFUSED 127.0.0.1:8000; Requested resource not found: Table: t";
    expect(sanitizeErrorMessage(message, ["t"])).toBe(
      "connect ECONNREFUSED 127.0.0.1:8000; Requested resource not found: Table: <table>",
    );
    expect(
      sanitizeErrorMessage("table/t.v2 and t.v2 but not t.v20 or at.v2; t.v2.", ["t.v2"]),
    ).toBe("table/<table> and <table> but not t.v20 or at.v2; <table>.");
  });
});

describe("compression and the response limit", () => {
  const { logger } = recordingLogger();
  const list = (count: number, size: number) =>
    httpHandler(
      async () => ok(Array.from({ length: count }, (_, id) => ({ id, content: "x".repeat(size) }))),
      logger,
    );
  const call = (handler: ReturnType<typeof list>, acceptEncoding?: string) =>
    handler(
      apiEvent({
        method: "GET",
        headers: acceptEncoding ? { "accept-encoding": acceptEncoding } : {},
      }),
    ) as Promise<APIGatewayProxyStructuredResultV2>;

  it.each([
    ["gzip", true],
    ["gzip, deflate, br", true],
    ["br;q=1.0, gzip;q=0.5", true],
    ["*", true],
    ["gzip;q=0", false],
    ["gzip;q=0, *", false],
    ["deflate, *;q=0.1", true],
    ["identity", false],
    [undefined, false],
  ])("Accept-Encoding %j allows gzip: %s", (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });

  it("gzips a large body when the client accepts it, and the body decodes to the same JSON", async () => {
    const handler = list(50, 100);
    const plain = await call(handler);
    const zipped = await call(handler, "gzip");
    expect(plain.isBase64Encoded).toBeFalsy();
    expect(zipped).toMatchObject({
      isBase64Encoded: true,
      headers: { "content-encoding": "gzip" },
    });
    expect(gunzipSync(Buffer.from(zipped.body ?? "", "base64")).toString()).toBe(plain.body);
  });

  it("leaves small bodies alone", async () => {
    const response = await call(list(1, 10), "gzip");
    expect(response.isBase64Encoded).toBeFalsy();
    expect(response.headers?.["content-encoding"]).toBeUndefined();
  });

  it("answers a clear error instead of a body over 6 MB, and gzip gets it through", async () => {
    const handler = list(7_000, 1_000); // ~7 MB of JSON, very compressible
    const plain = await call(handler);
    expect(plain.statusCode).toBe(500);
    expect(JSON.parse(plain.body ?? "")).toEqual({
      detail: expect.stringMatching(
        /^Response too large: \d+ bytes exceed the 6 MB Lambda response limit \(send Accept-Encoding: gzip/,
      ),
    });
    expect(plain.headers).toMatchObject({
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
    const zipped = await call(handler, "gzip");
    expect(zipped.statusCode).toBe(200);
    expect(zipped.headers?.["x-content-type-options"]).toBe("nosniff");
    expect(zipped.body?.length).toBeLessThan(RESPONSE_MAX_BYTES);
  });

  it("counts JSON escapes toward the limit", async () => {
    const quotes = httpHandler(async () => ok({ text: '"'.repeat(3_500_000) }), logger);
    expect((await call(quotes as ReturnType<typeof list>)).statusCode).toBe(500);
  });
});

describe("answering in time", () => {
  it("gives up on a step that does not finish and answers 500 before the function's timeout", async () => {
    const { logger, lines } = recordingLogger();
    const stuck = httpHandler(() => new Promise<never>(() => {}), logger);
    const started = Date.now();
    const response = (await stuck(apiEvent({ method: "GET" }), {
      getRemainingTimeInMillis: () => 1_300,
    })) as APIGatewayProxyStructuredResultV2;
    expect(Date.now() - started).toBeLessThan(1_300);
    expect(JSON.parse(response.body ?? "")).toEqual({
      detail: "DB ERROR: TimeoutError: storage did not answer within 300 ms",
    });
    expect(lines[0]).toMatchObject({ level: "error", fields: { status: 500 } });
  });

  it("aborts the step's signal when the deadline passes, and only then", async () => {
    const seen: AbortSignal[] = [];
    const waiting = httpHandler(
      (request) =>
        new Promise<never>((_, reject) => {
          seen.push(request.signal);
          request.signal.addEventListener("abort", () => reject(request.signal.reason));
        }),
      recordingLogger().logger,
    );
    const quick = httpHandler(async (request) => {
      seen.push(request.signal);
      return ok([]);
    }, recordingLogger().logger);
    const context = { getRemainingTimeInMillis: () => 1_200 };
    const late = (await waiting(apiEvent({ method: "GET" }), context)) as { statusCode: number };
    await quick(apiEvent({ method: "GET" }), context);
    expect(late.statusCode).toBe(500);
    expect(seen.map((signal) => signal.aborted)).toEqual([true, false]);
    expect(String(seen[0]?.reason)).toContain("storage did not answer within 200 ms");
  });

  it("shows the step the route's path parameter only when the handler names it", async () => {
    const echo = (options?: { pathParameter: string }) =>
      httpHandler(
        async (request) => ok({ pathId: request.pathId ?? null }),
        recordingLogger().logger,
        options,
      );
    const event = { method: "GET" as const, postId: "12" };
    expect((await invoke(echo({ pathParameter: "post_pk" }), event)).body).toEqual({
      pathId: "12",
    });
    expect((await invoke(echo({ pathParameter: "other" }), event)).body).toEqual({ pathId: null });
    expect((await invoke(echo(), event)).body).toEqual({ pathId: null });
  });

  it("logs the status the client gets, also when the size guard turns 200 into 500", async () => {
    const { logger, lines } = recordingLogger();
    const huge = httpHandler(async () => ok({ text: "x".repeat(RESPONSE_MAX_BYTES + 1) }), logger);
    await huge(apiEvent({ method: "GET" }));
    expect(lines[0]).toMatchObject({ level: "error", fields: { status: 500 } });
  });
});
