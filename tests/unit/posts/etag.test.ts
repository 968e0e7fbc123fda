// Unit: the ETags, of a body and of a list from its pages' digests.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  POST_DIGEST_BYTES,
  etagOf,
  etagOfParts,
  etagOfPageDigests,
  pageDigest,
  postDigest,
} from "../../../lib/posts/etag.js";

const STRONG_TAG = /^"[A-Za-z0-9_-]{32}"$/;
const bytes = (text: string) => Buffer.from(text);

describe("a body's tag", () => {
  it("is a quoted 32-character base64url digest, one per body, the same from the body's parts", () => {
    const parts = ['[{"id":1}', ',{"id":2}', "]"];
    expect(etagOf(parts.join(""))).toMatch(STRONG_TAG);
    expect(etagOfParts(parts)).toBe(etagOf(parts.join("")));
    expect(etagOf('[{"id":1}]')).toBe(etagOf('[{"id":1}]'));
    expect(etagOf('[{"id":1}]')).not.toBe(etagOf('[{"id":2}]'));
  });
});

describe("a post's digest", () => {
  it("is the first 16 bytes of the SHA-256 of its JSON", () => {
    const json = bytes('{"id":1,"title":"t"}');
    const digest = postDigest(json);
    expect(POST_DIGEST_BYTES).toBe(16);
    expect(digest).toEqual(createHash("sha256").update(json).digest().subarray(0, 16));
  });
});

const hashOf = (label: string, digests: Buffer[]) =>
  createHash("sha256").update(label).update(Buffer.concat(digests)).digest();

describe("a page's digest from its posts' digests", () => {
  const [a, b] = [postDigest(bytes('{"id":1}')), postDigest(bytes('{"id":2}'))];

  it("is the first 16 bytes of the joined digests' hash, under its own prefix, in order", () => {
    const digest = pageDigest(Buffer.concat([a, b]));
    expect(digest).toEqual(hashOf("page:", [a, b]).subarray(0, 16));
    expect(pageDigest(Buffer.concat([b, a]))).not.toEqual(digest);
    expect(pageDigest(a)).not.toEqual(digest);
  });
});

describe("a list's ETag from its pages' digests", () => {
  const [a, b] = [pageDigest(postDigest(bytes('{"id":1}'))), pageDigest(Buffer.alloc(0))];

  it("is the hash of the digests in order, under its own prefix, as a strong tag", () => {
    const expected = hashOf("pages:", [a, b]).toString("base64url").slice(0, 32);
    expect(etagOfPageDigests([a, b])).toBe(`"${expected}"`);
    expect(etagOfPageDigests([])).toBe(
      `"${hashOf("pages:", []).toString("base64url").slice(0, 32)}"`,
    );
  });

  it("changes with the order, a page more or less, and is never a body's tag", () => {
    const tag = etagOfPageDigests([a, b]);
    expect(etagOfPageDigests([b, a])).not.toBe(tag);
    expect(etagOfPageDigests([a])).not.toBe(tag);
    expect(etagOfParts([Buffer.concat([a, b])])).not.toBe(tag);
    expect(etagOf("[]")).not.toBe(etagOfPageDigests([]));
  });
});
