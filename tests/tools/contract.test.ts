// The contract itself: a valid OpenAPI 3.1 document, and a checker that really rejects drift.
import { readFileSync } from "node:fs";
import { Validator } from "@seriousme/openapi-schema-validator";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { assertMatchesContract } from "../helpers/contract.js";

const seen = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: new Headers({ "content-type": "application/json", ...headers }),
  text: body === undefined ? "" : JSON.stringify(body),
});
const lastDay = "2026-31-12 23:59:59";
const post = { id: 1, title: "t", content: "c", created_at: lastDay, updated_at: null };
const noCache = { "cache-control": "no-cache" };
/** A GET of post 1 answered 200 with `body`. */
const getOne = (body: unknown) => ["GET", "/api/post/1", seen(200, body)] as const;

describe("openapi.yaml", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const document = parse(readFileSync(new URL("../../openapi.yaml", import.meta.url), "utf8"));
    const result = await new Validator().validate(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it.each([
    ["GET", "/api/post", seen(200, [post], { etag: '"abc"', ...noCache })],
    ["GET", "/api/post", seen(304, undefined, { etag: '"abc"' })],
    ["POST", "/api/post", seen(201, post, { location: "/api/post/1" })],
    ["DELETE", "/api/post/1", seen(204, undefined)],
    ["GET", "/api/post/9", seen(404, { detail: "Blog post #9 not found" })],
    // The gateway's answer for a function that gave none, by the 5XX range.
    ["PUT", "/api/post/9", seen(502, { detail: "Internal server error" })],
  ])("accepts what the service answers to %s %s", (method, path, response) => {
    expect(() => assertMatchesContract(method, path, response)).not.toThrow();
  });

  it.each([
    ["an extra key", ...getOne({ ...post, author: "x" })],
    ["month before day", ...getOne({ ...post, created_at: "2026-12-31 23:59:59" })],
    ["a missing key", ...getOne({ ...post, updated_at: undefined })],
    ["an undocumented status", "GET", "/api/post/1", seen(418, { detail: "teapot" })],
    ["an error without detail", "GET", "/api/post/1", seen(404, { message: "no" })],
    ["a gateway failure in its default shape", "GET", "/api/post", seen(502, { message: "x" })],
    ["201 without Location", "POST", "/api/post", seen(201, post)],
    ["a body on 204", "DELETE", "/api/post/1", seen(204, { detail: "x" })],
    ["a list without its ETag", "GET", "/api/post", seen(200, [post], noCache)],
    ["a 304 without its ETag", "GET", "/api/post", seen(304, undefined)],
  ])("rejects %s", (_label, method, path, response) => {
    expect(() => assertMatchesContract(method, path, response)).toThrow();
  });
});
