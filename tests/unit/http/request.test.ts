// Unit: what every step reads of a request: the event's fields, its headers, and the body
// decoded, parsed and limited.
import type { APIGatewayProxyResult } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { httpHandler } from "../../../lib/http/handler.js";
import { BODY_MAX_BYTES, apiRequest, headerLookup } from "../../../lib/http/request.js";
import { ok } from "../../../lib/http/response.js";
import { apiEvent, invoke } from "../../helpers/events.js";
import { recordingLogger } from "../../helpers/handlers.js";

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
      const response = (await echo(event)) as APIGatewayProxyResult;
      expect(response.statusCode).toBe(400);
    },
  );

  it.each([
    ["a leading byte-order mark", "\uFEFF", { status: 200, body: { title: "t" } }],
    [
      "only one byte-order mark",
      "\uFEFF\uFEFF",
      { status: 400, body: { detail: "Request body is not valid JSON" } },
    ],
  ])("ignores %s, in text and in base64 alike", async (_label, marks, expected) => {
    const text = `${marks}{"title":"t"}`;
    for (const isBase64Encoded of [false, true]) {
      const body = isBase64Encoded ? Buffer.from(text).toString("base64") : text;
      expect(await invoke(echo, { method: "POST", body, isBase64Encoded })).toMatchObject(expected);
    }
  });

  it("decodes a base64 body", async () => {
    const body = Buffer.from(JSON.stringify({ title: "é😀" })).toString("base64");
    const response = await invoke(echo, { method: "POST", body, isBase64Encoded: true });
    expect(response).toMatchObject({ status: 200, body: { title: "é😀" } });
  });
});

describe("headerLookup", () => {
  it("reads a header whatever its case, from the multi-value map first, then the single", () => {
    const event = { headers: { Origin: "https://a.example" }, multiValueHeaders: { X: [] } };
    expect(headerLookup(event as never)("origin")).toBe("https://a.example");
    expect(headerLookup(event as never)("ORIGIN")).toBe("https://a.example");
    expect(headerLookup(event as never)("x")).toBeUndefined();
    const multi = { headers: null, multiValueHeaders: { "Accept-Encoding": ["br", "gzip"] } };
    expect(headerLookup(multi as never)("accept-encoding")).toBe("br, gzip");
    expect(headerLookup({ headers: null, multiValueHeaders: null } as never)("origin")).toBe(
      undefined,
    );
  });

  it("takes the first of two names differing only in case, and the joined values over the last", () => {
    const event = {
      headers: { "If-None-Match": '"b"', "if-none-match": '"c"', Accept: "a/1", accept: "a/2" },
      multiValueHeaders: { "If-None-Match": ['"a"', '"b"'], "if-none-match": ['"c"'] },
    };
    const header = headerLookup(event as never);
    expect(header("if-none-match")).toBe('"a", "b"');
    expect(header("accept")).toBe("a/1");
  });
});

describe("apiRequest", () => {
  const scope = { signal: new AbortController().signal, counts: {} };

  it("reads the method, route, request id, path id and path from the event, once", () => {
    const event = apiEvent({ method: "PUT", postId: "12", headers: { "If-Match": "x" } });
    const request = apiRequest(event, { pathParameter: "post_pk", scope });
    expect(request).toMatchObject({
      method: "PUT",
      route: "PUT /api/post/{post_pk}",
      requestId: event.requestContext.requestId,
      pathId: "12",
      path: "/dev/api/post/12",
      scope,
    });
    expect(request.header("if-match")).toBe("x");
    expect(apiRequest(event, { pathParameter: undefined, scope }).pathId).toBeUndefined();
  });

  it("without a request context, takes the route's path and has no request id", () => {
    const { requestContext: _, ...event } = apiEvent({ method: "GET", postId: "3" });
    const request = apiRequest(event as never, { pathParameter: "post_pk", scope });
    expect(request.path).toBe("/api/post/3");
    expect(request.requestId).toBeUndefined();
  });

  it("drops the path's trailing slashes", () => {
    const event = apiEvent({ method: "POST" });
    event.requestContext.path = "/dev/api/post//";
    expect(apiRequest(event, { pathParameter: undefined, scope }).path).toBe("/dev/api/post");
  });
});
