// Who may call the API: an optional JWT authorizer (API Gateway's own) on the write routes, or
// on every route with AUTH_READS=true. Read by serverless.yml, so `npm start`, the tests and a
// deployment all see the same rules. Unset AUTH_ISSUER_URL: no authorizer anywhere.
const AUTHORIZER = "jwt";

/** The JWT settings from the environment, or undefined when authorization is off. */
function readAuth(env = process.env) {
  const issuerUrl = (env.AUTH_ISSUER_URL ?? "").trim();
  if (!issuerUrl) return undefined;
  const audience = (env.AUTH_AUDIENCE ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (audience.length === 0) {
    throw new Error("AUTH_AUDIENCE must name at least one audience when AUTH_ISSUER_URL is set");
  }
  const reads = env.AUTH_READS ?? "false";
  if (reads !== "true" && reads !== "false") {
    throw new Error(`AUTH_READS must be true or false, not ${reads}`);
  }
  const writeScope = (env.AUTH_WRITE_SCOPE ?? "").trim() || undefined;
  return { issuerUrl, audience, writeScope, reads: reads === "true" };
}

/** `provider.httpApi.authorizers`: the JWT authorizer when configured, else none. */
const authorizers = () => {
  const auth = readAuth();
  if (!auth) return {};
  return {
    [AUTHORIZER]: {
      type: "jwt",
      identitySource: "$request.header.Authorization",
      issuerUrl: auth.issuerUrl,
      audience: auth.audience,
    },
  };
};

/** The authorizer of a write route (POST, PUT, DELETE), or null when writes are open. */
const writes = () => {
  const auth = readAuth();
  if (!auth) return null;
  return auth.writeScope ? { name: AUTHORIZER, scopes: [auth.writeScope] } : { name: AUTHORIZER };
};

/** The authorizer of a read route (the two GETs): only with AUTH_READS=true. */
const reads = () => {
  const auth = readAuth();
  return auth?.reads ? { name: AUTHORIZER } : null;
};

module.exports = { readAuth, authorizers, writes, reads };
