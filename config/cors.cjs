// CORS for the REST API, from CORS_ORIGINS (comma-separated origins, or *). Unset: no CORS.
// The gateway answers preflights (an OPTIONS method per path); a Lambda proxy answer gets no
// CORS headers from a REST API, so the functions add them (lib/http/cors.ts) from the same list,
// and the gateway's own answers get them from config/rest-stage.cjs.

/** The allowed origins, without blanks; `["*"]` for any. */
function readOrigins(env = process.env) {
  return (env.CORS_ORIGINS ?? "")
    .split(",")
    .map((origin) => origin.trim())
    .filter(Boolean);
}

/** Request headers a browser app may send: its bearer token among them. */
const ALLOWED_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "If-None-Match"];
/** Answer headers a browser app may read besides the simple ones. */
const EXPOSED_HEADERS = ["Location", "ETag", "Retry-After"];
/** How long a browser may keep a preflight's answer, in seconds. */
const MAX_AGE = 600;

module.exports = {
  readOrigins,
  ALLOWED_HEADERS,
  EXPOSED_HEADERS,
  MAX_AGE,
  /** Each `http` event's `cors`: osls makes the OPTIONS method of its path from it. */
  cors: () => {
    const origins = readOrigins();
    if (origins.length === 0) return false;
    return { origins, headers: ALLOWED_HEADERS, allowCredentials: false, maxAge: MAX_AGE };
  },
  /** The functions' CORS_ORIGINS, normalized ("" when CORS is off). */
  originsSetting: () => readOrigins().join(","),
};
