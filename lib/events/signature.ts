// Standard Webhooks signatures: HMAC-SHA256 over `<id>.<timestamp>.<body>` with the subscriber's
// secret (`whsec_<base64>`), sent as `webhook-signature: v1,<base64>`, one per secret in use.
import { createHmac, timingSafeEqual } from "node:crypto";

const SECRET_PREFIX = "whsec_";
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The key bytes of a `whsec_<base64>` secret; throws on anything else. */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : "";
  const key = Buffer.from(encoded, "base64");
  if (!BASE64.test(encoded) || key.length < 16) {
    throw new Error("A webhook secret is whsec_ followed by at least 16 bytes in base64");
  }
  return key;
}

/** One `v1,<base64>` signature of a delivery. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac("sha256", secretKey(secret));
  mac.update(`${id}.${timestamp}.${body}`);
  return `v1,${mac.digest("base64")}`;
}

/** The three Standard Webhooks headers of a delivery; several secrets sign it during a rotation. */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Record<string, string> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(nowSeconds),
    "webhook-signature": secrets.map((secret) => signature(secret, id, nowSeconds, body)).join(" "),
  };
}

/** Whether any signature in a `webhook-signature` header is this body's under `secret`. */
export function signatureMatches(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
): boolean {
  const expected = Buffer.from(signature(secret, headers.id, Number(headers.timestamp), body));
  return headers.signature.split(" ").some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
