// Checking a webhook delivery of the API's events (asyncapi.yaml) in one call, per Standard
// Webhooks: the signature over `<webhook-id>.<webhook-timestamp>.<body>` with the subscriber's
// secret, and a timestamp close to now. Web Crypto only, so it runs in browsers, Node 20+,
// Deno and edge runtimes alike.

/**
 * @typedef {{ type: "post.created" | "post.updated", timestamp: string, version: number,
 *   data: import("./schema.js").components["schemas"]["Post"] }} PostChanged
 * @typedef {{ type: "post.deleted", timestamp: string, version: number, data: { id: number } }} PostDeleted
 * @typedef {PostChanged | PostDeleted} PostEvent
 * @typedef {{ type: "post.created" | "post.updated", timestamp: string, version: number,
 *   data: Omit<import("./schema.js").components["schemas"]["Post"], "content">,
 *   omitted: ["content"], note: string }} ThinPostEvent
 */

/** How far a delivery's timestamp may be from now, either way, in seconds. */
export const TOLERANCE_SECONDS = 5 * 60;

/** A delivery that is not from the service, or not as it was sent. */
export class WebhookVerificationError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

const base64ToBytes = (/** @type {string} */ text) =>
  Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
const bytesToBase64 = (/** @type {Uint8Array} */ bytes) => btoa(String.fromCharCode(...bytes));

/** @param {Headers | Record<string, string | string[] | undefined>} headers @param {string} name */
function header(headers, name) {
  const value = headers instanceof Headers ? headers.get(name) : headers[name];
  if (typeof value !== "string" || value === "") {
    throw new WebhookVerificationError(`missing ${name} header`);
  }
  return value;
}

/**
 * The event a delivery carries, once its signature and timestamp check out; throws
 * WebhookVerificationError otherwise. `body` is the request's body exactly as received (text).
 * @param {string} secret the subscriber's `whsec_<base64>` secret
 * @param {Headers | Record<string, string | string[] | undefined>} headers
 * @param {string} body
 * @returns {Promise<PostEvent | ThinPostEvent>}
 */
export async function verifyWebhook(secret, headers, body, nowSeconds = Date.now() / 1000) {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature").split(" ");
  if (!/^[0-9]+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) {
    throw new WebhookVerificationError("webhook-timestamp is missing or too far from now");
  }
  if (!secret.startsWith("whsec_")) throw new WebhookVerificationError("secret is not whsec_…");
  const key = await crypto.subtle.importKey(
    "raw",
    base64ToBytes(secret.slice("whsec_".length)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  const expected = `v1,${bytesToBase64(new Uint8Array(await crypto.subtle.sign("HMAC", key, signed)))}`;
  // Every signature is compared in full, so the time taken says nothing about a near miss.
  let matched = false;
  for (const candidate of signatures) matched = sameText(candidate, expected) || matched;
  if (!matched) throw new WebhookVerificationError("no signature matches the body");
  return JSON.parse(body);
}

/** Equal strings, compared without stopping at the first difference. */
function sameText(/** @type {string} */ a, /** @type {string} */ b) {
  let difference = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    difference |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  }
  return difference === 0;
}
