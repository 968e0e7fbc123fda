// Unit: what every step reads of a request: the event's fields, its headers, and the body
// decoded, parsed and limited (exactly at the limit and one byte past it), in every shape
// serverless-offline and API Gateway hand it over.
import type { APIGatewayProxyResult } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { httpHandler } from "../../../lib/http/handler.js";
import { BODY_MAX_BYTES, apiRequest, headerLookup } from "../../../lib/http/request.js";
import { ok } from "../../../lib/http/response.js";
import { apiEvent } from "../../helpers/events.js";
import { quietLogger } from "../../helpers/handlers.js";

const echo = httpHandler(async (request) => ok(request.jsonObject()), quietLogger);

/** The answer to a POST of `body` as the event holds it (text or a parsed value), or its base64. */
async function send(body: unknown, encoded = false) {
  const raw = encoded ? Buffer.from(body as string).toString("base64") : body;
  const event = { ...apiEvent({ method: "POST", isBase64Encoded: encoded }), body: raw as string };
  const result = (await echo(event)) as APIGatewayProxyResult;
  return { status: result.statusCode, body: JSON.parse(result.body) as unknown };
}

describe("body parsing", () => {
  const REQUIRED = "Request body is required";
  const NOT_OBJECT = "Request body must be a JSON object";
  const INVALID = "Request body is not valid JSON";

  it.each([
    [REQUIRED, [undefined, null, "  \n "]],
    [INVALID, ["{"]],
    // serverless-offline hands over JSON scalars it parsed: read like their text.
    [NOT_OBJECT, ["[]", "null", '"x"', 5, 0, false]],
  ])("refuses with 400 %j a body of each of %j", async (detail, bodies) => {
    for (const body of bodies) {
      expect(await send(body), String(body)).toEqual({ status: 400, body: { detail } });
    }
  });

  it("refuses base64 of invalid UTF-8 with its own detail", async () => {
    const detail = "Request body is not valid UTF-8";
    expect(await send(Buffer.from([0xff, 0xfe]), true)).toEqual({ status: 400, body: { detail } });
  });

  /** A JSON object of exactly `bytes` UTF-8 bytes: `{"a":"…"}` filled with `fill`. */
  const objectOfBytes = (bytes: number, fill: "x" | "é") => {
    const room = bytes - '{"a":""}'.length;
    const json = `{"a":"${fill === "x" ? "x".repeat(room) : "é".repeat(room / 2)}"}`;
    expect(Buffer.byteLength(json)).toBe(bytes);
    return json;
  };

  it.each([
    ["a text body", "x", false],
    ["a text body of two-byte characters", "é", false],
    // 2^20 is not a multiple of 3: the base64 body is padded, and the padding is not counted.
    ["a base64 body, by what it decodes to", "x", true],
  ] as const)("takes %s of exactly the limit, not one byte more", async (_, fill, encoded) => {
    const atLimit = objectOfBytes(BODY_MAX_BYTES, fill);
    if (encoded) expect(Buffer.from(atLimit).toString("base64")).toMatch(/=$/);
    expect((await send(atLimit, encoded)).status).toBe(200);
    expect(await send(atLimit.replace('"a":"', '"a":"x'), encoded)).toEqual({
      status: 413,
      body: { detail: `Request body must be at most ${BODY_MAX_BYTES} bytes` },
    });
  });

  it.each([
    ["ignores a leading byte-order mark", '\uFEFF{"title":"é😀"}', 200, { title: "é😀" }],
    ["ignores only one mark", '\uFEFF\uFEFF{"title":"t"}', 400, { detail: INVALID }],
    ["keeps a mark inside a string as text", '{"title":"\uFEFFx"}', 200, { title: "\uFEFFx" }],
  ])("%s, in text and in base64 alike", async (_label, text, status, body) => {
    expect(await send(text)).toEqual({ status, body });
    expect(await send(text, true)).toEqual({ status, body });
  });
});

describe("headerLookup", () => {
  const lookup = (headers: unknown, multiValueHeaders: unknown) =>
    headerLookup({ headers, multiValueHeaders } as never);

  it("reads a header whatever its case, from the multi-value map first, then the single", () => {
    const header = lookup(
      { Origin: "https://a.example", "X-Thing": "one" },
      { X: [], "x-thing": undefined, "Accept-Encoding": ["br", "gzip"] },
    );
    expect(header("origin")).toBe("https://a.example");
    expect(header("ORIGIN")).toBe("https://a.example");
    expect(header("x-thing")).toBe("one");
    expect(header("x")).toBeUndefined();
    expect(header("accept-encoding")).toBe("br, gzip");
    expect(lookup(null, { "If-None-Match": ['"a"', '"b"'] })("if-none-match")).toBe('"a", "b"');
    expect(lookup(null, null)("origin")).toBeUndefined();
    // Of two names differing only in case, the first; the joined values over the last.
    const twice = lookup(
      { "If-None-Match": '"b"', "if-none-match": '"c"', Accept: "a/1", accept: "a/2" },
      { "If-None-Match": ['"a"', '"b"'], "if-none-match": ['"c"'] },
    );
    expect(twice("if-none-match")).toBe('"a", "b"');
    expect(twice("accept")).toBe("a/1");
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

  // No path stands for no request context: the route's path then, and no request id.
  it.each([
    ["/blog/api/post/", "/blog/api/post"],
    ["/dev/api/post//", "/dev/api/post"],
    [undefined, "/api/post/3"],
  ])("reads the path %j as %j, without trailing slashes", (path, expected) => {
    const event = apiEvent({ method: "POST", postId: 3 });
    if (path === undefined) Object.assign(event, { requestContext: undefined });
    else event.requestContext.path = path;
    const request = apiRequest(event, { pathParameter: "post_pk", scope });
    expect(request.path).toBe(expected);
    expect(request.requestId).toBe(event.requestContext?.requestId);
  });
});
