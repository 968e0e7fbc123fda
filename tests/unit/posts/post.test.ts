import { describe, expect, it, vi } from "vitest";
import { ValidationError, TooLargeError } from "../../../lib/posts/errors.js";
import {
  CONTENT_MAX_BYTES,
  parsePostId,
  postToStore,
  serializePost,
  validateCreate,
  validateUpdate,
} from "../../../lib/posts/post.js";

describe("parsePostId", () => {
  it.each([
    ["1", 1],
    ["42", 42],
    ["9007199254740991", 9007199254740991],
  ])("accepts %s", (raw, id) => {
    expect(parsePostId(raw)).toBe(id);
  });

  const NOT_CANONICAL = ["0", "-1", "+1", "1.5", "1.0", "01", "1e3", " 1", "1 ", "0x10", "９"];
  const NOT_AN_ID = ["abc", "", "9007199254740992", "1".repeat(400), undefined];
  it.each([...NOT_CANONICAL, ...NOT_AN_ID])("rejects %j as invalid", (raw) => {
    expect(() => parsePostId(raw)).toThrow(ValidationError);
    expect(() => parsePostId(raw)).toThrow("Blog post id must be a positive integer");
  });
});

describe("validateCreate", () => {
  it("accepts title and content", () => {
    expect(validateCreate({ title: "t", content: "c" })).toEqual({ title: "t", content: "c" });
  });

  it.each([
    [{}, "Missing required fields: content, title"],
    [{ title: "t" }, "Missing required fields: content"],
    [{ content: "c" }, "Missing required fields: title"],
  ])("names the missing fields of %j", (payload, detail) => {
    expect(() => validateCreate(payload)).toThrow(new ValidationError(detail));
  });

  it("reports unknown fields sorted, before missing ones", () => {
    expect(() => validateCreate({ zeta: 1, alpha: 2 })).toThrow(
      new ValidationError("Unknown fields: alpha, zeta"),
    );
  });

  it.each([
    [{ title: null, content: "c" }, "title must be a string"],
    [{ title: 5, content: "c" }, "title must be a string"],
    [{ title: "t", content: null }, "content must be a string"],
    [{ title: "t", content: ["c"] }, "content must be a string"],
    [{ title: "\ud800", content: "c" }, "title must be valid Unicode text"],
    [{ title: "t", content: "a\udc00b" }, "content must be valid Unicode text"],
  ])("rejects wrong types and broken text: %j", (payload, detail) => {
    expect(() => validateCreate(payload)).toThrow(new ValidationError(detail));
  });

  it("counts the title in code points: 100 emoji pass, 101 characters do not", () => {
    expect(validateCreate({ title: "😀".repeat(100), content: "" }).title).toHaveLength(200);
    expect(() => validateCreate({ title: "x".repeat(101), content: "" })).toThrow(
      new ValidationError("title must be at most 100 characters"),
    );
  });

  it("bounds content in UTF-8 bytes with 413", () => {
    expect(
      validateCreate({ title: "t", content: "x".repeat(CONTENT_MAX_BYTES) }).content,
    ).toHaveLength(CONTENT_MAX_BYTES);
    expect(() =>
      validateCreate({ title: "t", content: "é".repeat(CONTENT_MAX_BYTES / 2 + 1) }),
    ).toThrow(new TooLargeError("content must be at most 300000 bytes (UTF-8)"));
  });

  it("keeps a client-sent id and timestamps, reading both timestamp forms", () => {
    vi.stubEnv("TZ", "UTC");
    const sent = { id: 7, title: "t", content: "c", updated_at: null };
    expect(validateCreate({ ...sent, created_at: "2026-04-03 15:06:07" })).toEqual({
      ...sent,
      created_at: "2026-03-04T15:06:07.000Z",
    });
  });

  it.each([0, -1, 1.5, "7", null, 2 ** 53])("rejects id %j", (id) => {
    expect(() => validateCreate({ id, title: "t", content: "c" })).toThrow(
      new ValidationError("id must be a positive integer no greater than 9007199254740991"),
    );
  });

  it.each([1, 2 ** 53 - 1])("keeps id %j, a bound", (id) => {
    expect(validateCreate({ id, title: "t", content: "c" }).id).toBe(id);
  });

  it.each(["created_at", "updated_at"])("rejects a bad %s, naming it", (field) => {
    for (const value of ["yesterday", 0, "2026-13-13 00:00:00", "0000-01-01T00:00Z"]) {
      expect(() => validateCreate({ title: "t", content: "c", [field]: value })).toThrow(
        new ValidationError(
          `${field} must be null, "YYYY-DD-MM HH:MM:SS" or an ISO 8601 date-time with an offset, ` +
            "naming an instant in the years 0001 to 9998 (UTC)",
        ),
      );
    }
  });
});

describe("validateUpdate", () => {
  it("drops id and both timestamps silently, whatever their values, and takes no change", () => {
    expect(validateUpdate({ id: "x", created_at: 5, updated_at: {}, title: "new" })).toEqual({
      title: "new",
    });
    expect(validateUpdate({})).toEqual({});
  });

  it.each([
    [{ title: null }, "title must be a string"],
    [{ content: 1 }, "content must be a string"],
    [{ title: "x".repeat(101) }, "title must be at most 100 characters"],
    [{ author: "me" }, "Unknown fields: author"],
  ])("applies the create rules to %j", (payload, detail) => {
    expect(() => validateUpdate(payload)).toThrow(detail);
  });
});

describe("serializePost", () => {
  it("shows exactly the five keys with formatted timestamps", () => {
    vi.stubEnv("TZ", "UTC");
    const stored = { id: 3, title: "t", content: "c", updated_at: null };
    expect(serializePost({ ...stored, created_at: "2026-03-04T15:06:07.000Z" })).toStrictEqual({
      ...stored,
      created_at: "2026-04-03 15:06:07",
    });
  });
});

describe("postToStore", () => {
  it("sets both timestamps a client left out to the same current instant", () => {
    const before = new Date().toISOString();
    const post = postToStore({ title: "t", content: "c" }, 9);
    expect(post).toEqual({
      id: 9,
      title: "t",
      content: "c",
      created_at: expect.any(String),
      updated_at: post.created_at,
    });
    const createdAt = String(post.created_at);
    expect(createdAt >= before && createdAt <= new Date().toISOString()).toBe(true);
  });

  it("keeps what the client sent, null included", () => {
    const createdAt = "2020-01-02T03:04:05.000Z";
    const sent = { title: "t", content: "c", created_at: createdAt, updated_at: null };
    expect(postToStore(sent, 9)).toEqual({ id: 9, ...sent });
  });
});
