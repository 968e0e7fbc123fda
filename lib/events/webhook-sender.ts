// Sends one signed event to one subscriber: no redirects followed, nothing of the answer read but
// its status, the address checked as it is connected to, a time limit on the whole exchange.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { isAllowedAddress } from "./address.js";
import { webhookHeaders } from "./signature.js";

/** A subscriber: its URL and the secrets it checks (two while one is being rotated). */
export interface Subscriber {
  url: string;
  secrets: string[];
}

/** How a delivery went: `gone` (410) takes the subscriber off delivery; `failed` is retried. */
export interface DeliveryOutcome {
  result: "delivered" | "gone" | "failed";
  detail: string;
}

export interface SendOptions {
  /** http and loopback addresses, for `npm start` only; never on AWS. */
  local?: boolean;
  /** No answer within this time is a failure (15 s). */
  timeoutMs?: number;
}

export const DELIVERY_TIMEOUT_MS = 15_000;
/** The most of a subscriber's answer ever parsed: its status line and headers. */
const ANSWER_HEADER_MAX_BYTES = 8 * 1024;

/** Why a URL may not be sent to, or undefined when it may. */
export function refusedUrl(raw: string, local = false): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a URL";
  }
  if (url.protocol !== "https:" && !(local && url.protocol === "http:")) return "is not https";
  if (url.username || url.password) return "carries credentials";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) && !isAllowedAddress(host, local)) return "names an address that is not public";
  return undefined;
}

/** A DNS lookup that refuses any address a webhook may not reach, checked at each connection. */
function checkedLookup(local: boolean): typeof dnsLookup {
  return ((hostname: string, options: object, callback: (...args: unknown[]) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error);
      const refused = addresses.find(({ address }) => !isAllowedAddress(address, local));
      if (refused || addresses.length === 0) {
        return callback(new Error(`${hostname} resolves to ${refused?.address ?? "nothing"}`));
      }
      const all = (options as { all?: boolean }).all;
      const first = addresses[0] as LookupAddress;
      return all ? callback(null, addresses) : callback(null, first.address, first.family);
    });
  }) as typeof dnsLookup;
}

/** What an answer's status means: 2xx delivered, 410 gone, anything else (3xx too) failed. */
const resultOf = (status: number): DeliveryOutcome["result"] =>
  status >= 200 && status < 300 ? "delivered" : status === 410 ? "gone" : "failed";

/** Posts `body` to the subscriber, signed; resolves with how it went, never rejects. */
export function sendWebhook(
  subscriber: Subscriber,
  id: string,
  body: string,
  { local = false, timeoutMs = DELIVERY_TIMEOUT_MS }: SendOptions = {},
): Promise<DeliveryOutcome> {
  const refused = refusedUrl(subscriber.url, local);
  if (refused) return Promise.resolve({ result: "failed", detail: `the URL ${refused}` });
  const url = new URL(subscriber.url);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const request = send(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "blog-post-api-webhooks",
        ...webhookHeaders(subscriber.secrets, id, body),
      },
      lookup: checkedLookup(local),
      maxHeaderSize: ANSWER_HEADER_MAX_BYTES,
      signal: AbortSignal.timeout(timeoutMs),
    });
    request.once("response", (answer) => {
      const status = answer.statusCode ?? 0;
      // Nothing of the body is read: the connection is dropped instead.
      answer.destroy();
      request.destroy();
      resolve({ result: resultOf(status), detail: `answered ${status}` });
    });
    request.once("error", (error) => {
      const timedOut = error.name === "AbortError" || error.name === "TimeoutError";
      resolve({
        result: "failed",
        detail: timedOut ? `no answer in ${timeoutMs} ms` : error.message,
      });
    });
    request.end(body);
  });
}
