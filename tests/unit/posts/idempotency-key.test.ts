// Unit: what makes two create requests "the same" for an Idempotency-Key, and which keys are valid.
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../lib/posts/errors.js";
import { fingerprintPayload, parseIdempotencyKey } from "../../../lib/posts/idempotency-key.js";

describe("fingerprintPayload", () => {
  const payload = { title: "t", content: "c", id: 4, created_at: null };

  it("is the same whatever the order of the fields", () => {
    const reordered = { created_at: null, id: 4, content: "c", title: "t" };
    expect(fingerprintPayload(reordered)).toBe(fingerprintPayload(payload));
  });

  it.each([
    ["another value", { ...payload, content: "d" }],
    ["a field left out", { title: "t", content: "c", id: 4 }],
    ["a value of another type", { ...payload, id: "4" }],
  ])("differs for %s", (_label, other) => {
    expect(fingerprintPayload(other)).not.toBe(fingerprintPayload(payload));
  });
});

describe("parseIdempotencyKey", () => {
  it.each(["a", "k".repeat(255), "~!order-42"])("accepts %j", (key) => {
    expect(parseIdempotencyKey(key)).toBe(key);
  });

  it.each(["", "k".repeat(256), "a b", "é", "tab\there"])("refuses %j with 400", (key) => {
    expect(() => parseIdempotencyKey(key)).toThrow(
      new ValidationError("Idempotency-Key must be 1 to 255 visible ASCII characters"),
    );
  });
});
