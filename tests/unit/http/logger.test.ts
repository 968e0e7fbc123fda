// Unit tests: the log lines themselves, as Lambda would write them to CloudWatch.
import { afterEach, describe, expect, it, vi } from "vitest";
import { readConfig } from "../../../lib/app/config.js";
import { type LogLevel, createLogger } from "../../../lib/http/logger.js";
import { ok } from "../../../lib/http/response.js";
import { httpHandler } from "../../../lib/http/handler.js";
import { createPost, updatePost } from "../../../lib/http/routes.js";
import { StorageError } from "../../../lib/posts/errors.js";
import { apiEvent } from "../../helpers/events.js";
import { linesWrittenBy } from "../../helpers/handlers.js";
import { InMemoryPostRepository } from "../../helpers/memory-repository.js";

const lambdaContext = {
  functionName: "blog-post-api-prod-getPost",
  memoryLimitInMB: "1024",
  invokedFunctionArn: "arn:aws:lambda:eu-west-1:123456789012:function:blog-post-api-prod-getPost",
  awsRequestId: "c6af9ac6-7b61-11e6-9a41-93e812345678",
  getRemainingTimeInMillis: () => 10_000,
};

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("createLogger", () => {
  it.each([
    ["info", ["INFO", "ERROR"]],
    ["error", ["ERROR"]],
    ["silent", []],
  ] as [LogLevel, string[]][])("at %s writes %j", async (level, expected) => {
    const logger = createLogger(level, "blog");
    const lines = await linesWrittenBy(() => {
      logger.info("an info line");
      logger.error("an error line");
    });
    expect(lines.map((line) => line.level)).toEqual(expected);
  });

  it("writes one JSON object per line with level, message, timestamp and service first", async () => {
    // The service is POWERTOOLS_SERVICE_NAME, blog-post-api by default.
    const named = readConfig({ TABLE_NAME: "t", POWERTOOLS_SERVICE_NAME: "blog" }).serviceName;
    const [line, unnamed] = await linesWrittenBy(() => {
      createLogger("info", named).info("hi", { a: 1 });
      createLogger("info", readConfig({ TABLE_NAME: "t" }).serviceName).info("x");
    });
    expect(Object.keys(line ?? {})).toEqual(["level", "message", "timestamp", "service", "a"]);
    expect(line).toMatchObject({ level: "INFO", message: "hi", service: "blog", a: 1 });
    expect(new Date(String(line?.timestamp)).toISOString()).toBe(line?.timestamp);
    expect(unnamed?.service).toBe("blog-post-api");
  });

  it("writes to the sink it is given instead of standard output", async () => {
    const taken: string[] = [];
    const sink = { write: (line: string) => taken.push(line) > 0 };
    const lines = await linesWrittenBy(() => createLogger("info", "blog", sink).info("aside"));
    expect(lines).toEqual([]);
    expect(taken.map((line) => JSON.parse(line))).toMatchObject([{ message: "aside" }]);
  });
});

describe("a request's log line", () => {
  const handlerWith = () =>
    httpHandler(async () => ok({}), createLogger("info", "blog"), { pathParameter: "post_pk" });

  it("carries Powertools' Lambda keys and API Gateway's request id under its own key", async () => {
    vi.stubEnv(
      "_X_AMZN_TRACE_ID",
      "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
    );
    const handler = handlerWith();
    const event = apiEvent({ method: "GET", postId: "7" });
    const [first, second] = await linesWrittenBy(async () => {
      await handler(event, lambdaContext);
      await handler(event, { ...lambdaContext, awsRequestId: "second-request" });
    });
    expect(first).toMatchObject({
      level: "INFO",
      service: "blog",
      cold_start: true,
      function_name: "blog-post-api-prod-getPost",
      function_memory_size: 1024,
      function_arn: lambdaContext.invokedFunctionArn,
      function_request_id: lambdaContext.awsRequestId,
      xray_trace_id: "1-5759e988-bd862e3fe1be46a994272793",
      api_request_id: event.requestContext.requestId,
      route: "GET /api/post/{post_pk}",
      postId: "7",
      status: 200,
    });
    // Only an instance's first invocation is a cold start.
    expect(second).toMatchObject({ cold_start: false, function_request_id: "second-request" });
  });

  it("leaves out what is unknown outside Lambda, and reports no cold start when provisioned", async () => {
    vi.stubEnv("_X_AMZN_TRACE_ID", "");
    vi.stubEnv("AWS_LAMBDA_INITIALIZATION_TYPE", "provisioned-concurrency");
    const [line] = await linesWrittenBy(() => handlerWith()(apiEvent({ method: "GET" })));
    // The metrics' dimension needs a function name, so the line has one even here.
    expect(line).toMatchObject({ cold_start: false, function_name: "unknown" });
    for (const key of ["function_request_id", "function_memory_size", "xray_trace_id"]) {
      expect(line, key).not.toHaveProperty(key);
    }
  });
});

describe("what a request's log line never holds", () => {
  // Each value is marked, so finding any part of it anywhere in a line is a leak.
  const body = { title: "BODY-TITLE-MARK", content: "BODY-CONTENT-MARK" };
  const headers = {
    authorization: "Bearer HEADER-TOKEN-MARK",
    cookie: "session=HEADER-COOKIE-MARK",
    "user-agent": "HEADER-AGENT-MARK",
    "x-forwarded-for": "203.0.113.77",
    "idempotency-key": "HEADER-KEY-MARK",
  };
  const marks = /MARK|203\.0\.113\.77/;
  const event = (method: "POST" | "PUT", postId?: number) => {
    const e = apiEvent({ method, postId, body, headers });
    e.requestContext.identity.sourceIp = "203.0.113.77";
    e.requestContext.identity.userAgent = "HEADER-AGENT-MARK";
    return e;
  };
  const failing = new InMemoryPostRepository();
  failing.createOnce = () => Promise.reject(new StorageError("Boom: down"));

  it.each([
    ["a 201", () => createPost(new InMemoryPostRepository(), createLogger("info")), "POST", 201],
    ["a 404", () => updatePost(new InMemoryPostRepository(), createLogger("info")), "PUT", 404],
    ["a 500, the error line", () => createPost(failing, createLogger("info")), "POST", 500],
  ] as const)(
    "no body, header, token or client address, for %s",
    async (_, build, method, status) => {
      const handler = build();
      const lines = await linesWrittenBy(() =>
        handler(event(method, method === "PUT" ? 9 : undefined), lambdaContext),
      );
      expect(lines).toMatchObject([{ status }]);
      expect(JSON.stringify(lines[0])).not.toMatch(marks);
    },
  );
});
