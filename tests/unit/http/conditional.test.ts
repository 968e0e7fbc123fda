// Unit: ETags, If-None-Match and bodies sent already serialized (gzip and the 6 MB guard kept).
import { randomBytes } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { gzippedEtag, matchesIfNoneMatch } from "../../../lib/http/conditional.js";
import { etagOf, etagOfParts } from "../../../lib/posts/etag.js";
import { RESPONSE_MAX_BYTES, okUnlessHeld, toResponse } from "../../../lib/http/response.js";

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
  it("is sent as is, with its tag", () => {
    const json = '[{"id":1}]';
    const response = toResponse(okUnlessHeld(json, etagOf(json), undefined), false);
    expect(response).toMatchObject({ statusCode: 200, body: json });
    expect(response.headers?.etag).toBe(etagOf(json));
  });

  it("is 304 with no body and no content type when the client holds it", () => {
    const response = toResponse(okUnlessHeld("[]", TAG, TAG), true);
    expect(response.statusCode).toBe(304);
    expect(response.body).toBeUndefined();
    expect(response.headers?.["content-type"]).toBeUndefined();
    expect(response.headers?.etag).toBe(TAG);
  });

  it("is gzipped under its own tag", () => {
    const json = JSON.stringify(Array.from({ length: 50 }, (_, id) => ({ id, title: "t" })));
    const response = toResponse(okUnlessHeld(json, etagOf(json), undefined), true);
    expect(response.isBase64Encoded).toBe(true);
    expect(gunzipSync(Buffer.from(response.body!, "base64")).toString()).toBe(json);
    expect(response.headers?.etag).toBe(gzippedEtag(etagOf(json)));
  });

  it("is compressed once: the last tagged body's gzip is answered again for its tag", () => {
    const rows = (title: string) =>
      JSON.stringify(Array.from({ length: 50 }, (_, id) => ({ id, title })));
    const unzip = (body: string | undefined) =>
      gunzipSync(Buffer.from(body ?? "", "base64")).toString();
    const first = toResponse(okUnlessHeld(rows("a"), '"tag-1"', undefined), true);
    expect(unzip(first.body)).toBe(rows("a"));
    // A tag names one body, so the memo answers by tag alone: a (forged) other body under the
    // same tag gets the kept gzip, which shows that nothing was compressed again.
    const again = toResponse(okUnlessHeld(rows("b"), '"tag-1"', undefined), true);
    expect(again.body).toBe(first.body);
    const changed = toResponse(okUnlessHeld(rows("b"), '"tag-2"', undefined), true);
    expect(unzip(changed.body)).toBe(rows("b"));
  });

  it("over 6 MB is refused with the clear 500, uncompressed or not compressible enough", () => {
    // Random base64 barely compresses, and the gzipped bytes grow again as base64.
    const big = JSON.stringify([randomBytes(RESPONSE_MAX_BYTES).toString("base64")]);
    for (const gzip of [false, true]) {
      const response = toResponse(okUnlessHeld(big, etagOf(big), undefined), gzip);
      expect(response.statusCode).toBe(500);
      expect(JSON.parse(response.body!).detail).toMatch(/^Response too large: /);
    }
  });
});

describe("a tag hashed in parts", () => {
  it("is the tag of the joined body", () => {
    const parts = ['[{"id":1}', ',{"id":2}', "]"];
    expect(etagOfParts(parts)).toBe(etagOf(parts.join("")));
  });
});
