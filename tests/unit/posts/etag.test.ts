// Unit: the ETags, of a body and of a list from its posts' digests.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  POST_DIGEST_BYTES,
  etagOf,
  etagOfParts,
  etagOfPostDigests,
  postDigest,
} from "../../../lib/posts/etag.js";

const STRONG_TAG = /^"[A-Za-z0-9_-]{32}"$/;
const bytes = (text: string) => Buffer.from(text);

describe("a post's digest", () => {
  it("is the first 16 bytes of the SHA-256 of its JSON", () => {
    const json = bytes('{"id":1,"title":"t"}');
    const digest = postDigest(json);
    expect(POST_DIGEST_BYTES).toBe(16);
    expect(digest).toEqual(createHash("sha256").update(json).digest().subarray(0, 16));
  });
});

describe("a list's ETag from its posts' digests", () => {
  const [a, b] = [postDigest(bytes('{"id":1}')), postDigest(bytes('{"id":2}'))];

  it("is a strong tag of 32 base64url characters, the same for the same posts", () => {
    const tag = etagOfPostDigests([a, b]);
    expect(tag).toMatch(STRONG_TAG);
    expect(etagOfPostDigests([postDigest(bytes('{"id":1}')), b])).toBe(tag);
  });

  it("is the hash of the digests in order, under its own prefix", () => {
    const expected = createHash("sha256")
      .update("posts:")
      .update(Buffer.concat([a, b]))
      .digest("base64url")
      .slice(0, 32);
    expect(etagOfPostDigests([a, b])).toBe(`"${expected}"`);
  });

  it("changes with the order, a post more or less, and is never a body's tag", () => {
    const tag = etagOfPostDigests([a, b]);
    expect(etagOfPostDigests([b, a])).not.toBe(tag);
    expect(etagOfPostDigests([a])).not.toBe(tag);
    expect(etagOfPostDigests([])).toMatch(STRONG_TAG);
    expect(etagOfParts([Buffer.concat([a, b])])).not.toBe(tag);
    expect(etagOf("[]")).not.toBe(etagOfPostDigests([]));
  });
});
