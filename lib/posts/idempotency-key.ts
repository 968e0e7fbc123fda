// The Idempotency-Key header: its format, how long a key is kept, and a create body's fingerprint.
import { createHash } from "node:crypto";
import { ValidationError } from "./errors.js";

/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

/** A create that may be a retry: its key and a fingerprint of its body. */
export interface IdempotentRequest {
  key: string;
  fingerprint: string;
}

const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/** Validates an Idempotency-Key header value: 1 to 255 visible ASCII characters. */
export function parseIdempotencyKey(value: string): string {
  if (!KEY_FORMAT.test(value)) {
    throw new ValidationError("Idempotency-Key must be 1 to 255 visible ASCII characters");
  }
  return value;
}

/**
 * A digest of a validated create payload: equal for the same fields and values, whatever their
 * order or spacing. Validated payloads are flat (strings, numbers, null), so the fields are
 * written in sorted order and nothing nested needs sorting.
 */
export function fingerprintPayload(payload: Record<string, unknown>): string {
  const canonical = JSON.stringify(payload, Object.keys(payload).sort());
  return createHash("sha256").update(canonical).digest("base64url");
}
