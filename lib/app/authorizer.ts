// The token authorizer's wiring (handlers/authorize-writes.ts): its settings read from the
// environment once per instance, failing fast, and the check of lib/http/authorizer.ts built.
import { type AuthorizerSettings, writeAuthorizer } from "../http/authorizer.js";
import { createLogger } from "../http/logger.js";

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
