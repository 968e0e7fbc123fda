// CORS on the functions' answers: a REST API's Lambda proxy answer gets no CORS headers from the
// gateway (it answers only the preflight), so each answer names the caller's origin when it is
// one of CORS_ORIGINS. The origins and the header names are read as config/cors.cjs reads them
// for the gateway's side (lib/shared/).
import { CORS_EXPOSED_HEADERS } from "../shared/names.js";

const EXPOSED_HEADERS = CORS_EXPOSED_HEADERS.join(", ");

/**
 * The CORS headers of an answer to a request from `origin`: none when CORS is off or the origin
 * is not allowed (the browser then refuses the answer, as CORS means it to). `Vary: Origin`
 * whenever the answer depends on the origin, so a cache keeps one per origin.
 */
export function corsHeaders(
  origins: readonly string[],
  origin: string | undefined,
): Record<string, string> {
  if (origins.length === 0) return {};
  if (origins.includes("*")) {
    return { "access-control-allow-origin": "*", "access-control-expose-headers": EXPOSED_HEADERS };
  }
  const allowed = origins.find((listed) => listed === origin);
  if (allowed === undefined) return { vary: "origin" };
  return {
    "access-control-allow-origin": allowed,
    "access-control-expose-headers": EXPOSED_HEADERS,
    vary: "origin",
  };
}

/** Adds the CORS headers to an answer's, one Vary naming everything the answer varies by. */
export function withCors(headers: Record<string, string>, cors: Record<string, string>): void {
  const { vary, ...rest } = cors;
  Object.assign(headers, rest);
  if (vary !== undefined) {
    headers.vary = headers.vary === undefined ? vary : `${headers.vary}, ${vary}`;
  }
}
