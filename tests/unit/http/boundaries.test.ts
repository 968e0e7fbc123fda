// Unit: the HTTP adapter at its edges: body sizes exactly at the limit and one byte past it,
// bodies of every shape serverless-offline and API Gateway hand over, gzip at its threshold, the
// headers each kind of answer carries, and the request's log line.
import { gunzipSync } from "node:zlib";
import type { APIGatewayProxyResult } from "aws-lambda";
import { afterEach, describe, expect, it, vi } from "vitest";
import { bufferedResult, httpHandler } from "../../../lib/http/handler.js";
import { BODY_MAX_BYTES } from "../../../lib/http/request.js";
import { acceptsGzip } from "../../../lib/http/compress.js";
import { type Reply, ok, okUnlessHeld, outgoing } from "../../../lib/http/response.js";
import type { LogFields, Logger } from "../../../lib/http/logger.js";
import { apiEvent, invoke } from "../../helpers/events.js";

/** A reply as a buffered function returns it. */
const toResponse = async (reply: Reply, gzip: boolean) =>
  bufferedResult(await outgoing(reply, gzip));
const quiet: Logger = { info: () => {}, error: () => {} };
const echo = httpHandler(async (request) => ok(request.jsonObject()), quiet);

/** A JSON object of exactly `bytes` UTF-8 bytes: `{"a":"…"}` filled with `fill`. */
const objectOfBytes = (bytes: number, fill: "x" | "é") => {
  const room = bytes - '{"a":""}'.length;
  const text = fill === "x" ? "x".repeat(room) : "é".repeat(room / 2);
  const json = `{"a":"${text}"}`;
  expect(Buffer.byteLength(json)).toBe(bytes);
  return json;
};

describe("the request body limit", () => {
  it.each(["x", "é"] as const)(
    "takes a text body of exactly the limit (%s) and refuses one byte more",
    async (fill) => {
      const atLimit = objectOfBytes(BODY_MAX_BYTES, fill);
      expect((await invoke(echo, { method: "POST", body: atLimit })).status).toBe(200);
      const over = atLimit.replace('"a":"', '"a":"x');
      expect(await invoke(echo, { method: "POST", body: over })).toMatchObject({
        status: 413,
        body: { detail: `Request body must be at most ${BODY_MAX_BYTES} bytes` },
      });
    },
  );

  it("measures a base64 body by what it decodes to, padding included", async () => {
    const base64 = (json: string) => Buffer.from(json).toString("base64");
    const atLimit = objectOfBytes(BODY_MAX_BYTES, "x");
    expect(base64(atLimit)).toMatch(/=$/); // 2^20 is not a multiple of 3: the body is padded
    const taken = await invoke(echo, {
      method: "POST",
      body: base64(atLimit),
      isBase64Encoded: true,
    });
    expect(taken.status).toBe(200);
    const over = base64(atLimit.replace('"a":"', '"a":"x'));
    expect(await invoke(echo, { method: "POST", body: over, isBase64Encoded: true })).toMatchObject(
      { status: 413 },
    );
  });
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

describe("headers by kind of answer", () => {
  it("a body the client may cache: its ETag and no-cache; a 304 keeps them and varies", async () => {
    const fresh = await toResponse(okUnlessHeld(["[]"], '"t"', undefined), false);
    expect(fresh.headers).toMatchObject({ etag: '"t"', "cache-control": "no-cache" });
    const held = await toResponse(okUnlessHeld(["[]"], '"t"', '"t"'), false);
    expect(held).toEqual({
      statusCode: 304,
      body: "",
      headers: { etag: '"t"', "cache-control": "no-cache", vary: "accept-encoding" },
    });
  });

  it("a gzipped answer: content-encoding, vary and the gzip form of its ETag", async () => {
    const zipped = await toResponse(okUnlessHeld(["x".repeat(2_000)], '"t"', undefined), true);
    expect(zipped.headers).toMatchObject({
      "content-encoding": "gzip",
      vary: "accept-encoding",
      etag: '"t-gzip"',
    });
  });
});

describe("the request's log line", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  const recording = () => {
    const lines: { level: string; message: string; fields?: LogFields }[] = [];
    const logger: Logger = {
      info: (message, fields) => lines.push({ level: "info", message, fields }),
      error: (message, fields) => lines.push({ level: "error", message, fields }),
    };
    return { logger, lines };
  };

  it("is 'request' at info for an answer under 500, with its duration in ms to 0.01", async () => {
    const { logger, lines } = recording();
    vi.spyOn(performance, "now").mockReturnValueOnce(1_000).mockReturnValueOnce(1_012.3456);
    await httpHandler(async () => ok([]), logger)(apiEvent({ method: "GET" }));
    expect(lines).toEqual([
      { level: "info", message: "request", fields: expect.objectContaining({ status: 200 }) },
    ]);
    expect(lines[0]?.fields?.durationMs).toBe(12.35);
  });

  it("is 'request failed' at error for a 500", async () => {
    const { logger, lines } = recording();
    await httpHandler(
      async () => Promise.reject(new Error("boom")),
      logger,
    )(apiEvent({ method: "GET" }));
    expect(lines).toEqual([
      {
        level: "error",
        message: "request failed",
        fields: expect.objectContaining({ status: 500, error: expect.any(Object) }),
      },
    ]);
  });

  it.each([
    ["no request context", undefined],
    ["a request context of only a request id", { requestId: "r-1" }],
  ])("is written for an event with %s, and the request answered", async (_label, context) => {
    const { logger, lines } = recording();
    const event = { ...apiEvent({ method: "GET" }), requestContext: context };
    const handler = httpHandler(async () => ok([]), logger);
    const response = (await handler(event as never)) as APIGatewayProxyResult;
    expect(response.statusCode).toBe(200);
    expect(lines[0]?.fields).toMatchObject({ method: "GET", status: 200 });
    expect(lines[0]?.fields?.api_request_id).toBe(context?.requestId);
  });

  it("leaves no timer behind once the step has answered", async () => {
    vi.useFakeTimers();
    await httpHandler(async () => ok([]), quiet)(apiEvent({ method: "GET" }));
    expect(vi.getTimerCount()).toBe(0);
  });
});
