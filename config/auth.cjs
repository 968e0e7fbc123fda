// Who may call the API: an optional JWT authorizer (API Gateway's own) on the write routes, or
// on every route with AUTH_READS=true. Read by serverless.yml, so `npm start`, the tests and a
// deployment all see the same rules. The tokens come from an issuer you name (AUTH_ISSUER_URL)
// or from the stage's own Cognito user pool (AUTH_USER_POOL=true, config/user-pool.cjs).
// Neither set: no authorizer anywhere.
const AUTHORIZER = "jwt";

/** The resource server and scope of the stage's own pool: its tokens carry `blog/write`. */
const POOL_SCOPE = { resourceServer: "blog", name: "write" };
const POOL_WRITE_SCOPE = `${POOL_SCOPE.resourceServer}/${POOL_SCOPE.name}`;

/**
 * A true/false setting; unset is false.
 * @param {NodeJS.ProcessEnv} env
 * @param {string} name
 */
function readBoolean(env, name) {
  const raw = (env[name] ?? "false").trim();
  if (raw !== "true" && raw !== "false") {
    throw new Error(`${name} must be true or false, not ${JSON.stringify(raw)}`);
  }
  return raw === "true";
}

/**
 * A comma-separated list setting, without blanks.
 * @param {NodeJS.ProcessEnv} env
 * @param {string} name
 */
function readList(env, name) {
  return (env[name] ?? "")
    .split(",")
    .map((/** @type {string} */ entry) => entry.trim())
    .filter(Boolean);
}

/**
 * The JWT settings from the environment, or undefined when authorization is off. With the pool,
 * `issuerUrl` and the first audience are CloudFormation references to the pool and its client.
 */
function readAuth(env = process.env) {
  const issuerUrl = (env.AUTH_ISSUER_URL ?? "").trim();
  const userPool = readBoolean(env, "AUTH_USER_POOL");
  if (userPool && issuerUrl) {
    throw new Error(
      "AUTH_USER_POOL=true and AUTH_ISSUER_URL both name who issues the tokens: set one, " +
        "AUTH_USER_POOL=true for the stage's own Cognito user pool or AUTH_ISSUER_URL for an issuer you run",
    );
  }
  if (!userPool && !issuerUrl) return undefined;
  const reads = readBoolean(env, "AUTH_READS");
  const audience = readList(env, "AUTH_AUDIENCE");
  if (userPool) {
    if ((env.AUTH_WRITE_SCOPE ?? "").trim()) {
      throw new Error(
        `AUTH_WRITE_SCOPE does not apply with AUTH_USER_POOL=true: the pool's write scope is ${POOL_WRITE_SCOPE}`,
      );
    }
    return {
      issuerUrl: { "Fn::Sub": "https://cognito-idp.${AWS::Region}.${AWS::URLSuffix}/${UserPool}" },
      // The stage's machine client, then any other clients AUTH_AUDIENCE adds (people's apps).
      audience: [{ Ref: "UserPoolWriterClient" }, ...audience],
      writeScope: POOL_WRITE_SCOPE,
      reads,
      userPool: true,
    };
  }
  if (audience.length === 0) {
    throw new Error("AUTH_AUDIENCE must name at least one audience when AUTH_ISSUER_URL is set");
  }
  const writeScope = (env.AUTH_WRITE_SCOPE ?? "").trim() || undefined;
  return { issuerUrl, audience, writeScope, reads, userPool: false };
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

module.exports = { POOL_SCOPE, POOL_WRITE_SCOPE, readAuth, authorizers, writes, reads };
