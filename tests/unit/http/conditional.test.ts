// Unit: If-None-Match, and bodies sent already serialized with their ETag (gzip kept per tag).
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { gzippedEtag, matchesIfNoneMatch } from "../../../lib/http/conditional.js";
import { etagOf, etagOfParts } from "../../../lib/posts/etag.js";
import { gzipMemo } from "../../../lib/http/compress.js";
import { type Reply, okUnlessHeld, outgoing } from "../../../lib/http/response.js";
import { bufferedResult } from "../../../lib/http/handler.js";

/** One handler's compressor, as the pipeline gives each handler its own. */
const memo = gzipMemo();
const toResponse = async (reply: Reply, gzip: boolean) =>
  bufferedResult(await outgoing(reply, gzip, memo));
const unzip = (body: string) => gunzipSync(Buffer.from(body, "base64")).toString();

const TAG = etagOf("[]");
/** 50 posts titled `title`, large enough to be gzipped. */
const rows = (title: string) =>
  JSON.stringify(Array.from({ length: 50 }, (_, id) => ({ id, title })));

describe("If-None-Match", () => {
  const named = [TAG, `W/${TAG}`, gzippedEtag(TAG), `"a", ${TAG}`, "*", " * "];
  // W/ is ignored only as a prefix.
  const unnamed = ['"a", "b"', TAG.slice(1, -1), "", undefined, `"W/${TAG.slice(1)}`];
  it.each([
    ...named.map((header) => [header, true] as const),
    ...unnamed.map((header) => [header, false] as const),
  ])("%s names the body: %s", (header, expected) => {
    expect(matchesIfNoneMatch(header, TAG)).toBe(expected);
  });
});

describe("a body sent already serialized", () => {
  it("is sent as is, with its tag, for the client to cache and ask again about", async () => {
    const json = '[{"id":1}]';
    const response = await toResponse(okUnlessHeld([json], etagOf(json), undefined), false);
    expect(response).toMatchObject({ statusCode: 200, body: json });
    expect(response.headers).toMatchObject({ etag: etagOf(json), "cache-control": "no-cache" });
    // 304 with no body and no content type when the client holds it, its tag kept.
    expect(await toResponse(okUnlessHeld(["[]"], TAG, TAG), true)).toEqual({
      statusCode: 304,
      body: "",
      headers: { etag: TAG, "cache-control": "no-cache", vary: "accept-encoding" },
    });
  });

  it("is gzipped under its own tag, and varies by encoding", async () => {
    const json = rows("t");
    const response = await toResponse(okUnlessHeld([json], etagOf(json), undefined), true);
    expect(response.isBase64Encoded).toBe(true);
    expect(unzip(response.body)).toBe(json);
    expect(response.headers).toMatchObject({
      "content-encoding": "gzip",
      vary: "accept-encoding",
      etag: gzippedEtag(etagOf(json)),
    });
  });

  it("is compressed once: the last tagged body's gzip is answered again for its tag", async () => {
    const first = await toResponse(okUnlessHeld([rows("a")], '"tag-1"', undefined), true);
    expect(unzip(first.body)).toBe(rows("a"));
    // A tag names one body: a (forged) other body under it gets the kept gzip, not a new one.
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
    expect(unzip(zipped.body)).toBe(json);
  });
});
