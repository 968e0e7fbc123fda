// Post rules, retries: reading the Idempotency-Key header and fingerprinting a create body.
import { createHash } from "node:crypto";
import { BadRequestError } from "./errors.js";

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
    throw new BadRequestError("Idempotency-Key must be 1 to 255 visible ASCII characters");
  }
  return value;
}

/** JSON with object keys sorted at every level, so key order and spacing do not matter. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .map(
        (key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`,
      );
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}

/** A digest of a create payload: equal for the same fields and values, whatever their order. */
export function fingerprintPayload(payload: Record<string, unknown>): string {
  return createHash("sha256").update(canonicalJson(payload)).digest("base64url");
}
