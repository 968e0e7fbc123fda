// Who may call the API: an optional authorizer on the write routes, or on every route with
// AUTH_READS=true. Read by serverless.yml, so `npm start`, the tests and a deployment all see the
// same rules. The tokens come from the stage's own Cognito user pool (AUTH_USER_POOL=true,
// config/user-pool.cjs: API Gateway's Cognito authorizer checks them) or from an issuer you name
// (AUTH_ISSUER_URL: the authorizeWrites function checks them, lib/http/authorizer.ts). Neither
// set: no authorizer anywhere.

/** The stage's own pool's authorizer, and the function that checks an issuer's tokens. */
const POOL_AUTHORIZER = "userPool";
const TOKEN_AUTHORIZER = "authorizeWrites";
/** How long API Gateway keeps an authorizer's verdict for one token, in seconds. */
const RESULT_TTL_SECONDS = 300;

/** The resource server and scopes of the stage's own pool: writes need `blog/write`. */
const POOL_SCOPE = { resourceServer: "blog", name: "write", read: "read" };
const POOL_WRITE_SCOPE = `${POOL_SCOPE.resourceServer}/${POOL_SCOPE.name}`;
const POOL_READ_SCOPE = `${POOL_SCOPE.resourceServer}/${POOL_SCOPE.read}`;
/**
 * The pool's groups and the scopes a member's access token gets (the grantScopes trigger,
 * lib/http/token-scopes.ts): a writer reads too, as a Cognito authorizer asks one scope of a list.
 */
const POOL_GROUP_SCOPES = {
  writers: [POOL_WRITE_SCOPE, POOL_READ_SCOPE],
  readers: [POOL_READ_SCOPE],
};
/** The group `npm run token`'s deploy user is put in. */
const WRITER_GROUP = "writers";

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
  const machineClient = readBoolean(env, "AUTH_MACHINE_CLIENT");
  if (machineClient && !userPool) {
    throw new Error(
      "AUTH_MACHINE_CLIENT=true adds a client to the stage's own user pool: set AUTH_USER_POOL=true too",
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
    if (audience.length > 0) {
      throw new Error(
        "AUTH_AUDIENCE does not apply with AUTH_USER_POOL=true: the pool's authorizer takes a " +
          `token of any of its app clients that is allowed ${POOL_WRITE_SCOPE}; allow the scope to a client instead`,
      );
    }
    return {
      issuerUrl: { "Fn::Sub": "https://cognito-idp.${AWS::Region}.${AWS::URLSuffix}/${UserPool}" },
      // Any client of the pool whose token carries the scope: the sign-in client, people's apps.
      audience: [{ Ref: "UserPoolSignInClient" }],
      writeScope: POOL_WRITE_SCOPE,
      reads,
      userPool: true,
      machineClient,
    };
  }
  if (audience.length === 0) {
    throw new Error("AUTH_AUDIENCE must name at least one audience when AUTH_ISSUER_URL is set");
  }
  const writeScope = (env.AUTH_WRITE_SCOPE ?? "").trim() || undefined;
  return { issuerUrl, audience, writeScope, reads, userPool: false, machineClient: false };
}

/**
 * An `http` event's authorizer for the pool, asking any one of `scopes`.
 * @param {string[]} scopes
 */
const poolAuthorizer = (scopes) => ({
  name: POOL_AUTHORIZER,
  type: "COGNITO_USER_POOLS",
  arn: { "Fn::GetAtt": ["UserPool", "Arn"] },
  scopes,
});

/** An `http` event's authorizer for an issuer's tokens: the function, its verdict cached. */
const tokenAuthorizer = () => ({
  name: TOKEN_AUTHORIZER,
  type: "token",
  identitySource: "method.request.header.Authorization",
  resultTtlInSeconds: RESULT_TTL_SECONDS,
});

/** The authorizer of a write route (POST, PUT, DELETE), or null when writes are open. */
const writes = () => {
  const auth = readAuth();
  if (!auth) return null;
  return auth.userPool ? poolAuthorizer([POOL_WRITE_SCOPE]) : tokenAuthorizer();
};

/** The authorizer of a read route (the two GETs): only with AUTH_READS=true. */
const reads = () => {
  const auth = readAuth();
  if (!auth?.reads) return null;
  // A Cognito authorizer takes an access token only for the scopes it names: a writer reads too.
  return auth.userPool ? poolAuthorizer([POOL_READ_SCOPE, POOL_WRITE_SCOPE]) : tokenAuthorizer();
};

/**
 * The authorizer function's settings, as its environment: empty unless an issuer is named.
 * The function exists in every stage, but only routes with an issuer call it.
 */
const tokenSettings = () => {
  const auth = readAuth();
  const issuer = auth && !auth.userPool ? auth : undefined;
  return {
    AUTH_ISSUER_URL: issuer ? issuer.issuerUrl : "none",
    AUTH_AUDIENCE: issuer ? issuer.audience.join(",") : "none",
    AUTH_WRITE_SCOPE: issuer?.writeScope ?? "",
  };
};

/** The scope trigger's settings, as its environment: each group's scopes. */
const groupScopesSettings = () => ({ GROUP_SCOPES: JSON.stringify(POOL_GROUP_SCOPES) });

module.exports = {
  POOL_SCOPE,
  POOL_GROUP_SCOPES,
  WRITER_GROUP,
  groupScopesSettings,
  POOL_WRITE_SCOPE,
  POOL_READ_SCOPE,
  RESULT_TTL_SECONDS,
  readAuth,
  writes,
  reads,
  tokenSettings,
};
