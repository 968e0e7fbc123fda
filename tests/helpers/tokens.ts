// Bearer tokens for serverless-offline's authorizer, minted here. Locally the authorizer checks
// the issuer, audience, expiry and scope, not the signature (API Gateway checks that on AWS), so
// any key signs them.
import { SignJWT, type JWTPayload } from "jose";

export const ISSUER = "https://issuer.example";
export const AUDIENCE = "blog";
export const WRITE_SCOPE = "posts/write";

/** The settings that turn the authorizer on for these tokens. */
export const AUTH_SETTINGS = {
  AUTH_ISSUER_URL: ISSUER,
  AUTH_AUDIENCE: `other-app, ${AUDIENCE}`,
  AUTH_WRITE_SCOPE: WRITE_SCOPE,
};

const signingKey = new TextEncoder().encode("a key only these tests know, 32+ bytes long");

/** A signed JWT with the given claims; by default from the right issuer and audience, with the write scope. */
export async function token(claims: JWTPayload = {}, expiresIn: string | number = "5m") {
  const defaults = { iss: ISSUER, aud: AUDIENCE, sub: "author-1", scope: `openid ${WRITE_SCOPE}` };
  return new SignJWT({ ...defaults, ...claims })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(signingKey);
}
