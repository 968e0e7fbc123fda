// The wiring of who may call the API: the token authorizer (handlers/authorize-writes.ts) and the
// user pool's scope trigger (handlers/grant-scopes.ts), each with its settings read from the
// environment once per instance, failing fast.
import { type AuthorizerSettings, writeAuthorizer } from "../http/authorizer.js";
import { createLogger } from "../http/logger.js";
import { type GroupScopes, grantScopes } from "../http/token-scopes.js";

/** The settings of an authorizer function, from its environment; throws on anything wrong. */
export function readAuthorizerSettings(env: NodeJS.ProcessEnv): AuthorizerSettings {
  const offline = env.IS_OFFLINE === "true";
  // Lambda sets AWS_EXECUTION_ENV, serverless-offline does not: skipped signatures stay local.
  if (offline && (env.AWS_EXECUTION_ENV ?? "").startsWith("AWS_Lambda")) {
    throw new Error("IS_OFFLINE=true on Lambda: token signatures are checked on AWS, always");
  }
  const issuer = (env.AUTH_ISSUER_URL ?? "").trim();
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new Error(`AUTH_ISSUER_URL must be the issuer's URL, not ${JSON.stringify(issuer)}`);
  }
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (url.protocol !== "https:" && !(offline && loopback)) {
    throw new Error(`AUTH_ISSUER_URL must be https, not ${JSON.stringify(issuer)}`);
  }
  const audiences = (env.AUTH_AUDIENCE ?? "")
    .split(",")
    .map((audience) => audience.trim())
    .filter(Boolean);
  if (audiences.length === 0) throw new Error("AUTH_AUDIENCE must name at least one audience");
  const writeScope = (env.AUTH_WRITE_SCOPE ?? "").trim() || undefined;
  return { issuer, audiences, writeScope, verifySignature: !offline };
}

/** The authorizer an environment configures, logging only its errors. */
export function buildAuthorizer(env: NodeJS.ProcessEnv = process.env) {
  return writeAuthorizer(
    readAuthorizerSettings(env),
    createLogger("error", env.POWERTOOLS_SERVICE_NAME || undefined),
  );
}

/** Reads GROUP_SCOPES (JSON: group → scopes); throws on anything else, so init fails fast. */
export function readGroupScopes(env: NodeJS.ProcessEnv): GroupScopes {
  const raw = env.GROUP_SCOPES ?? "";
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
    // Stryker disable next-line BlockStatement: text that is not JSON leaves `parsed` unset, refused below alike
  } catch {
    parsed = undefined;
  }
  const valid =
    typeof parsed === "object" &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    Object.values(parsed).every(
      (scopes) => Array.isArray(scopes) && scopes.every((scope) => typeof scope === "string"),
    );
  if (!valid) throw new Error(`GROUP_SCOPES must map groups to lists of scopes, not ${raw}`);
  return parsed as GroupScopes;
}

/** The pool's pre token generation trigger its environment configures. */
export function buildScopeGrant(env: NodeJS.ProcessEnv = process.env) {
  return grantScopes(readGroupScopes(env));
}
