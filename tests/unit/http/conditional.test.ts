// Unit: ETags, If-None-Match and bodies sent already serialized (gzip kept per tag).
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { gzippedEtag, matchesIfNoneMatch } from "../../../lib/http/conditional.js";
import { etagOf, etagOfParts } from "../../../lib/posts/etag.js";
import { gzipMemo } from "../../../lib/http/compress.js";
import { type Reply, okUnlessHeld, outgoing } from "../../../lib/http/response.js";
import { bufferedResult } from "../../../lib/http/handler.js";

/** A reply as a buffered function returns it. */
/** One handler's compressor, as the pipeline gives each handler its own. */
const memo = gzipMemo();
const toResponse = async (reply: Reply, gzip: boolean) =>
  bufferedResult(await outgoing(reply, gzip, memo));

const TAG = etagOf("[]");

describe("If-None-Match", () => {
  it.each([
    [TAG, true],
    [`W/${TAG}`, true],
    [gzippedEtag(TAG), true],
    [`"a", ${TAG}`, true],
    ["*", true],
    [" * ", true],
    ['"a", "b"', false],
    [TAG.slice(1, -1), false],
    ["", false],
    [undefined, false],
  ])("%s names the body: %s", (header, expected) => {
    expect(matchesIfNoneMatch(header, TAG)).toBe(expected);
  });

  it("ignores W/ only as a prefix", () => {
    const tag = '"abcd"';
    expect(matchesIfNoneMatch('"abW/cd"', tag)).toBe(false);
  });

  it("is a quoted 32-character base64url digest", () => {
    expect(etagOf('[{"id":1}]')).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
  });

  it("gives different bodies different tags and equal bodies equal ones", () => {
    expect(etagOf('[{"id":1}]')).not.toBe(etagOf('[{"id":2}]'));
    expect(etagOf('[{"id":1}]')).toBe(etagOf('[{"id":1}]'));
  });
});

describe("a body sent already serialized", () => {
  it("is sent as is, with its tag", async () => {
    const json = '[{"id":1}]';
    const response = await toResponse(okUnlessHeld([json], etagOf(json), undefined), false);
    expect(response).toMatchObject({ statusCode: 200, body: json });
    expect(response.headers?.etag).toBe(etagOf(json));
  });

  it("is 304 with no body and no content type when the client holds it", async () => {
    const response = await toResponse(okUnlessHeld(["[]"], TAG, TAG), true);
    expect(response.statusCode).toBe(304);
    expect(response.body).toBe("");
    expect(response.headers?.["content-type"]).toBeUndefined();
    expect(response.headers?.etag).toBe(TAG);
  });

  it("is gzipped under its own tag", async () => {
    const json = JSON.stringify(Array.from({ length: 50 }, (_, id) => ({ id, title: "t" })));
    const response = await toResponse(okUnlessHeld([json], etagOf(json), undefined), true);
    expect(response.isBase64Encoded).toBe(true);
    expect(gunzipSync(Buffer.from(response.body, "base64")).toString()).toBe(json);
    expect(response.headers?.etag).toBe(gzippedEtag(etagOf(json)));
  });

  it("is compressed once: the last tagged body's gzip is answered again for its tag", async () => {
    const rows = (title: string) =>
      JSON.stringify(Array.from({ length: 50 }, (_, id) => ({ id, title })));
    const unzip = (body: string) => gunzipSync(Buffer.from(body ?? "", "base64")).toString();
    const first = await toResponse(okUnlessHeld([rows("a")], '"tag-1"', undefined), true);
    expect(unzip(first.body)).toBe(rows("a"));
    // A tag names one body, so the memo answers by tag alone: a (forged) other body under the
    // same tag gets the kept gzip, which shows that nothing was compressed again.
    const again = await toResponse(okUnlessHeld([rows("b")], '"tag-1"', undefined), true);
    expect(again.body).toBe(first.body);
    const changed = await toResponse(okUnlessHeld([rows("b")], '"tag-2"', undefined), true);
    expect(unzip(changed.body)).toBe(rows("b"));
  });

  it("in many pieces is sent as their concatenation, plain or gzipped, and never refused for size", async () => {
    const pieces = Array.from({ length: 3_000 }, (_, id) => `${id === 0 ? "[" : ","}{"id":${id}}`);
    pieces.push("]");
    const json = pieces.join("");
    const plain = await toResponse(okUnlessHeld(pieces, etagOfParts(pieces), undefined), false);
    expect(plain.body).toBe(json);
    const zipped = await toResponse(okUnlessHeld(pieces, etagOfParts(pieces), undefined), true);
    expect(gunzipSync(Buffer.from(zipped.body, "base64")).toString()).toBe(json);
  });
});

describe("a tag hashed in parts", () => {
  it("is the tag of the joined body", () => {
    const parts = ['[{"id":1}', ',{"id":2}', "]"];
    expect(etagOfParts(parts)).toBe(etagOf(parts.join("")));
  });
});
