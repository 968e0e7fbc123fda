// Unit: the HTTP adapter at its edges: body sizes exactly at the limit and one byte past it,
// bodies of every shape serverless-offline and API Gateway hand over, gzip at its threshold, and
// the request's log line.
import { gunzipSync } from "node:zlib";
import type { APIGatewayProxyResult } from "aws-lambda";
import { afterEach, describe, expect, it, vi } from "vitest";
import { bufferedResult, httpHandler } from "../../../lib/http/handler.js";
import { BODY_MAX_BYTES } from "../../../lib/http/request.js";
import { acceptsGzip } from "../../../lib/http/compress.js";
import { type Reply, ok, outgoing } from "../../../lib/http/response.js";
import { apiEvent, invoke } from "../../helpers/events.js";
import { quietLogger, recordingLogger } from "../../helpers/handlers.js";

/** A reply as a buffered function returns it. */
const toResponse = async (reply: Reply, gzip: boolean) =>
  bufferedResult(await outgoing(reply, gzip));
const echo = httpHandler(async (request) => ok(request.jsonObject()), quietLogger);

/** A JSON object of exactly `bytes` UTF-8 bytes: `{"a":"…"}` filled with `fill`. */
const objectOfBytes = (bytes: number, fill: "x" | "é") => {
  const room = bytes - '{"a":""}'.length;
  const text = fill === "x" ? "x".repeat(room) : "é".repeat(room / 2);
  const json = `{"a":"${text}"}`;
  expect(Buffer.byteLength(json)).toBe(bytes);
  return json;
};

describe("the request body limit", () => {
  const base64 = (json: string) => Buffer.from(json).toString("base64");

  it.each([
    ["a text body", "x", false],
    ["a text body of two-byte characters", "é", false],
    ["a base64 body, measured by what it decodes to", "x", true],
  ] as const)(
    "takes %s of exactly the limit and refuses one byte more",
    async (_, fill, encoded) => {
      const send = (json: string) =>
        invoke(echo, {
          method: "POST",
          body: encoded ? base64(json) : json,
          isBase64Encoded: encoded,
        });
      const atLimit = objectOfBytes(BODY_MAX_BYTES, fill);
      // 2^20 is not a multiple of 3: the base64 body is padded, and the padding is not counted.
      if (encoded) expect(base64(atLimit)).toMatch(/=$/);
      expect((await send(atLimit)).status).toBe(200);
      const over = atLimit.replace('"a":"', '"a":"x');
      // The detail's wording is request.ts's own test's to hold.
      expect(await send(over)).toMatchObject({
        status: 413,
        body: { detail: expect.stringMatching(/\w/) },
      });
    },
  );
});

describe("body shapes", () => {
  it.each([
    ["absent", undefined, "Request body is required"],
    ["null", null, "Request body is required"],
    ["only spaces", "  \n ", "Request body is required"],
    ["a number serverless-offline parsed", 5, "Request body must be a JSON object"],
  ])("%s: 400 with its own detail", async (_label, body, detail) => {
    const event = { ...apiEvent({ method: "POST" }), body: body as unknown as string };
    const response = (await echo(event)) as APIGatewayProxyResult;
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body ?? "")).toEqual({ detail });
  });

  it("removes a byte-order mark only at the start: one inside a string is text", async () => {
    const body = '{"title":"\uFEFFx"}';
    expect(await invoke(echo, { method: "POST", body })).toMatchObject({
      status: 200,
      body: { title: "\uFEFFx" },
    });
  });
});

describe("Accept-Encoding, spaced and with other parameters", () => {
  it.each([
    ["gzip; q=0", false],
    ["gzip ;q=0", false],
    [" gzip ; level=1 ; q=0", false],
    ["gzip;level=1;q=0.5", true],
  ])("%j allows gzip: %s", (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});

describe("gzip at its threshold", () => {
  const answer = (json: string, gzip = false) =>
    toResponse({ statusCode: 200, body: undefined, json: [json] }, gzip);

  it("compresses from 1 KB on: a body of exactly 1024 bytes is gzipped, 1023 is not", async () => {
    const zipped = await answer("x".repeat(1024), true);
    expect(zipped).toMatchObject({ isBase64Encoded: true });
    expect(gunzipSync(Buffer.from(zipped.body ?? "", "base64")).toString()).toBe("x".repeat(1024));
    expect((await answer("x".repeat(1023), true)).isBase64Encoded).toBeUndefined();
  });
});

describe("the request's log line", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it.each([
    ["'request' at info for an answer under 500", async () => ok([]), "info", "request", 200],
    [
      "'request failed' at error for a 500",
      async () => Promise.reject(new Error("boom")),
      "error",
      "request failed",
      500,
    ],
  ])("is %s, with its duration in ms to 0.01", async (_, step, level, message, status) => {
    const { logger, lines } = recordingLogger();
    vi.spyOn(performance, "now").mockReturnValueOnce(1_000).mockReturnValueOnce(1_012.3456);
    await httpHandler(step, logger)(apiEvent({ method: "GET" }));
    expect(lines).toEqual([{ level, message, fields: expect.objectContaining({ status }) }]);
    expect(lines[0]?.fields?.durationMs).toBe(12.35);
  });

  it.each([
    ["no request context", undefined],
    ["a request context of only a request id", { requestId: "r-1" }],
  ])("is written for an event with %s, and the request answered", async (_label, context) => {
    const { logger, lines } = recordingLogger();
    const event = { ...apiEvent({ method: "GET" }), requestContext: context };
    const handler = httpHandler(async () => ok([]), logger);
    const response = (await handler(event as never)) as APIGatewayProxyResult;
    expect(response.statusCode).toBe(200);
    expect(lines[0]?.fields).toMatchObject({ method: "GET", status: 200 });
    expect(lines[0]?.fields?.api_request_id).toBe(context?.requestId);
  });

  it("leaves no timer behind once the step has answered", async () => {
    vi.useFakeTimers();
    await httpHandler(async () => ok([]), quietLogger)(apiEvent({ method: "GET" }));
    expect(vi.getTimerCount()).toBe(0);
  });
});
