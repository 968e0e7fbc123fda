// The write routes' token check for an issuer of one's own (AUTH_ISSUER_URL), as a Lambda TOKEN
// authorizer: the token's signature against the issuer's published keys, its issuer, audience,
// expiry and scope. Why a function rather than the REST API's own JWT authorizer: docs/security.md.
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from "aws-lambda";
import {
  type JWTPayload,
  type JWTVerifyGetKey,
  createRemoteJWKSet,
  decodeJwt,
  jwtVerify,
} from "jose";
import type { Logger } from "./logger.js";

/** What the authorizer trusts. */
export interface AuthorizerSettings {
  /** The issuer's URL, as its tokens' `iss` says it. */
  issuer: string;
  /** Accepted audiences: a token's `aud`, or a Cognito access token's `client_id`. */
  audiences: readonly string[];
  /** The scope writes need; none when unset. */
  writeScope: string | undefined;
  /** False only under serverless-offline, which cannot fetch the issuer's keys. */
  verifySignature: boolean;
}

/** Seconds of clock difference allowed on `exp` and `nbf`. */
const CLOCK_TOLERANCE_S = 5;
/** API Gateway answers this exact message with 401; anything else thrown is a 500. */
const UNAUTHORIZED = "Unauthorized";

/**
 * The issuer's keys, found through its OpenID discovery document (Cognito, Auth0, Okta and
 * Keycloak all publish one), fetched once per instance and then cached by jose.
 */
export function issuerKeys(issuer: string): JWTVerifyGetKey {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const discover = async () => {
    const response = await fetch(`${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`);
    if (!response.ok)
      throw new Error(`the issuer's discovery document answered ${response.status}`);
    const { jwks_uri: jwksUri } = (await response.json()) as { jwks_uri?: string };
    if (!jwksUri) throw new Error("the issuer's discovery document names no jwks_uri");
    return createRemoteJWKSet(new URL(jwksUri));
  };
  return async (header, token) => {
    keys ??= discover().catch((error: unknown) => {
      keys = undefined; // the next request asks again
      throw error;
    });
    return (await keys)(header, token);
  };
}

/** The claims of a token, checked as jwtVerify does but for the signature (offline only). */
function unverifiedClaims(token: string, issuer: string): JWTPayload {
  const claims = decodeJwt(token);
  const now = Date.now() / 1000;
  if (claims.iss !== issuer) throw new Error(UNAUTHORIZED);
  if (typeof claims.exp === "number" && claims.exp < now - CLOCK_TOLERANCE_S)
    throw new Error(UNAUTHORIZED);
  if (typeof claims.nbf === "number" && claims.nbf > now + CLOCK_TOLERANCE_S)
    throw new Error(UNAUTHORIZED);
  return claims;
}

/** The scopes a token grants: OAuth's space-separated `scope`, or an `scp` list. */
function scopesOf(claims: JWTPayload): string[] {
  if (typeof claims.scope === "string") return claims.scope.split(" ").filter(Boolean);
  return Array.isArray(claims.scp) ? claims.scp.map(String) : [];
}

/** Whether the token was issued for one of the audiences. */
function forAudience(claims: JWTPayload, audiences: readonly string[]): boolean {
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  return [...aud, claims.client_id].some((value) => audiences.includes(String(value)));
}

/**
 * The policy for a token. API Gateway keeps a verdict for the token itself (its result cache),
 * whatever route asked: so the policy names every method of the stage, reads allowed, writes
 * allowed only with the scope. A write without it meets the Deny, and API Gateway answers 403.
 */
function policy(methodArn: string, principalId: string, mayWrite: boolean, scopes: string[]) {
  // arn:aws:execute-api:region:account:api/stage/VERB/path…: the stage's own methods.
  const stage = methodArn.split("/").slice(0, 2).join("/");
  const statement = (Effect: "Allow" | "Deny", Resource: string[]) => ({
    Action: "execute-api:Invoke",
    Effect,
    Resource,
  });
  const writes = ["POST", "PUT", "DELETE"].map((verb) => `${stage}/${verb}/*`);
  return {
    principalId,
    policyDocument: {
      Version: "2012-10-17",
      Statement: [
        statement("Allow", [`${stage}/GET/*`]),
        statement(mayWrite ? "Allow" : "Deny", writes),
      ],
    },
    context: { scope: scopes.join(" ") },
  } satisfies APIGatewayAuthorizerResult;
}

/** The authorizer: 401 for no valid token, 403 for a write without the scope, else allowed. */
export function writeAuthorizer(
  settings: AuthorizerSettings,
  logger: Logger,
  keys: JWTVerifyGetKey = issuerKeys(settings.issuer),
) {
  return async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    const token = /^Bearer +(\S+)$/i.exec(event.authorizationToken ?? "")?.[1];
    if (!token) throw new Error(UNAUTHORIZED);
    let claims: JWTPayload;
    try {
      claims = settings.verifySignature
        ? (
            await jwtVerify(token, keys, {
              issuer: settings.issuer,
              clockTolerance: CLOCK_TOLERANCE_S,
            })
          ).payload
        : unverifiedClaims(token, settings.issuer);
    } catch (error) {
      // The token's own fault is a 401; the issuer unreachable is a 500, and is logged.
      const name = error instanceof Error ? error.name : "";
      if (name.startsWith("JW") || !settings.verifySignature) throw new Error(UNAUTHORIZED);
      logger.error("token check failed", { error: { name, message: String(error) } });
      throw error;
    }
    if (!forAudience(claims, settings.audiences)) throw new Error(UNAUTHORIZED);
    const scopes = scopesOf(claims);
    const mayWrite = settings.writeScope === undefined || scopes.includes(settings.writeScope);
    return policy(event.methodArn, String(claims.sub ?? "unknown"), mayWrite, scopes);
  };
}
