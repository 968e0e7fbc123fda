// CORS for the REST API, from CORS_ORIGINS (comma-separated origins, or *). Unset: no CORS.
// The gateway answers preflights (an OPTIONS method per path); a Lambda proxy answer gets no
// CORS headers from a REST API, so the functions add them (lib/http/cors.ts) from the same list,
// and the gateway's own answers get them from config/rest-stage.cjs. Both sides read the list and
// the header names from lib/shared/.
const { parseOrigins } = require("../lib/shared/settings.ts");
const { CORS_ALLOWED_HEADERS } = require("../lib/shared/names.ts");

/** The allowed origins, without blanks; `["*"]` for any. */
const readOrigins = (env = process.env) => parseOrigins(env.CORS_ORIGINS);

/** How long a browser may keep a preflight's answer, in seconds. */
const MAX_AGE = 600;

module.exports = {
  readOrigins,
  /** Each `http` event's `cors`: osls makes the OPTIONS method of its path from it. */
  cors: () => {
    const origins = readOrigins();
    if (origins.length === 0) return false;
    return { origins, headers: CORS_ALLOWED_HEADERS, allowCredentials: false, maxAge: MAX_AGE };
  },
  /** The functions' CORS_ORIGINS, normalized ("" when CORS is off). */
  originsSetting: () => readOrigins().join(","),
};
