// Unit: the token authorizer of the write routes with real tokens (jose), its keys found through
// an issuer's discovery document served on loopback: every way to a 401, the 403 of a write
// without the scope, the allowed policy, and the offline check that skips only the signature.
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from "aws-lambda";
import { type JWTVerifyGetKey, SignJWT, exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AuthorizerSettings,
  issuerKeys,
  writeAuthorizer,
} from "../../../lib/http/authorizer.js";
import { recordingLogger } from "../../helpers/handlers.js";

const METHOD_ARN = "arn:aws:execute-api:us-east-1:123456789012:abc123/dev/POST/api/post";
const STAGE = "arn:aws:execute-api:us-east-1:123456789012:abc123/dev";
const AUDIENCE = "blog-app";
const SCOPE = "blog/write";

let server: Server;
let issuer = "";
let signingKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];
let otherKey: typeof signingKey;
let discoveries = 0;

beforeAll(async () => {
  const pair = await generateKeyPair("RS256");
  signingKey = pair.privateKey;
  otherKey = (await generateKeyPair("RS256")).privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  server = createServer((request, response) => {
    response.setHeader("content-type", "application/json");
    if (request.url === "/.well-known/openid-configuration") {
      discoveries++;
      response.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/keys.json` }));
    } else if (request.url === "/nokeys/.well-known/openid-configuration") {
      response.end(JSON.stringify({ issuer: `${issuer}/nokeys` }));
    } else if (request.url === "/keys.json") {
      response.end(JSON.stringify({ keys: [jwk] }));
    } else {
      response.statusCode = 404;
      response.end("{}");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const settings = (overrides: Partial<AuthorizerSettings> = {}): AuthorizerSettings => ({
  issuer,
  audiences: [AUDIENCE, "other-app"],
  writeScope: SCOPE,
  verifySignature: true,
  ...overrides,
});

/** A token signed by the issuer's key unless another is given; claims over good defaults. */
async function token(claims: Record<string, unknown> = {}, key = signingKey, expiresIn = "5m") {
  return new SignJWT({ scope: `openid ${SCOPE}`, ...claims })
    .setProtectedHeader({ alg: "RS256", kid: "k1" })
    .setIssuer(String(claims.iss ?? issuer))
    .setAudience((claims.aud as string) ?? AUDIENCE)
    .setSubject("author-1")
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(key);
}

/** The event API Gateway hands over; a missing token only in the test that says so. */
const event = (authorizationToken: string | undefined) =>
  ({ type: "TOKEN", authorizationToken, methodArn: METHOD_ARN }) as APIGatewayTokenAuthorizerEvent;
const authorizer = (overrides: Partial<AuthorizerSettings> = {}, keys?: JWTVerifyGetKey) =>
  writeAuthorizer(settings(overrides), recordingLogger().logger, keys);
/** The time `seconds` from now, as a token's claims write it. */
const inSeconds = (seconds: number) => Math.floor(Date.now() / 1000) + seconds;
const bearer = async (...args: Parameters<typeof token>) => `Bearer ${await token(...args)}`;
const ALL_ALLOWED = {
  "/GET/*": "Allow",
  "/POST/*": "Allow",
  "/PUT/*": "Allow",
  "/DELETE/*": "Allow",
};

/** The effect the policy gives each kind of method of the stage. */
function effects(result: APIGatewayAuthorizerResult) {
  const byResource: Record<string, string> = {};
  for (const statement of result.policyDocument.Statement as {
    Effect: string;
    Resource: string[];
  }[]) {
    for (const resource of statement.Resource)
      byResource[resource.replace(STAGE, "")] = statement.Effect;
  }
  return byResource;
}

describe("a valid token", () => {
  it("is allowed to read and write, under its subject, for the whole stage", async () => {
    const result = await authorizer()(event(await bearer()));
    expect(result.principalId).toBe("author-1");
    expect(effects(result)).toEqual(ALL_ALLOWED);
    expect(result.context).toEqual({ scope: `openid ${SCOPE}` });
  });

  it.each([
    ["its `scp` list", { scope: undefined, scp: ["x", SCOPE] }, {}],
    ["a Cognito access token's client_id instead of aud", { aud: "", client_id: "other-app" }, {}],
    ["one of several audiences, the service's", { aud: ["someone-else", AUDIENCE] }, {}],
    ["no scope, when none is set", { scope: undefined }, { writeScope: undefined }],
  ])("is allowed to write through %s", async (_label, claims, overrides) => {
    const result = await authorizer(overrides)(event(await bearer(claims)));
    expect(effects(result)).toEqual(ALL_ALLOWED);
  });

  it("without the write scope may read but not write: a write meets a Deny (403)", async () => {
    const result = await authorizer()(event(await bearer({ scope: "openid" })));
    expect(effects(result)).toEqual({
      "/GET/*": "Allow",
      "/POST/*": "Deny",
      "/PUT/*": "Deny",
      "/DELETE/*": "Deny",
    });
  });
});

describe("no valid token is Unauthorized (401)", () => {
  it.each<[string, () => Promise<string | undefined>]>([
    ["no authorizationToken in the event at all", async () => undefined],
    ["no header", async () => ""],
    ["not Bearer", async () => `Basic ${await token()}`],
    ["not a JWT", async () => "Bearer not-a-token"],
    ["another key's signature", () => bearer({}, otherKey)],
    ["another issuer", () => bearer({ iss: "https://elsewhere.example" })],
    ["another audience", () => bearer({ aud: "someone-else" })],
    ["none of several audiences", () => bearer({ aud: ["someone-else", "a-third"] })],
    ["expired", () => bearer({}, signingKey, "-1m")],
    ["not yet valid", () => bearer({ nbf: inSeconds(600) })],
  ])("%s", async (_label, header) => {
    await expect(authorizer()(event(await header()))).rejects.toThrow(/^Unauthorized$/);
  });
});

describe("the issuer's keys", () => {
  it("are found once through its discovery document, then kept", async () => {
    const before = discoveries;
    const authorize = authorizer({}, issuerKeys(issuer));
    await authorize(event(await bearer()));
    await authorize(event(await bearer()));
    expect(discoveries - before).toBe(1);
  });

  it("are found from an issuer written with a trailing slash", async () => {
    const result = await authorizer({}, issuerKeys(`${issuer}//`))(event(await bearer()));
    expect(result.principalId).toBe("author-1");
  });

  it("fail the check when the discovery document names no key set", async () => {
    const authorize = authorizer({}, issuerKeys(`${issuer}/nokeys`));
    await expect(authorize(event(await bearer()))).rejects.toThrow(/names no jwks_uri/);
  });

  it("unreachable, fail the check as the server's fault (500), logged, and are asked for again", async () => {
    const { logger, lines } = recordingLogger();
    const authorize = writeAuthorizer(settings({ issuer: `${issuer}/missing` }), logger);
    const missing = event(await bearer({ iss: `${issuer}/missing` }));
    await expect(authorize(missing)).rejects.toThrow(/discovery document answered 404/);
    await expect(authorize(missing)).rejects.toThrow(/discovery document answered 404/);
    expect(lines.map((line) => line.message)).toEqual(["token check failed", "token check failed"]);
  });

  it("that throw what is not an Error fail the check as the server's fault, logged", async () => {
    const { logger, lines } = recordingLogger();
    const keys = (async () => {
      throw "key store down";
    }) as never;
    const authorize = writeAuthorizer(settings(), logger, keys);
    await expect(authorize(event(await bearer()))).rejects.toBe("key store down");
    expect(lines[0]?.fields).toEqual({ error: { name: "", message: "key store down" } });
  });
});

describe("offline, under serverless-offline", () => {
  const offline = () =>
    authorizer({ verifySignature: false }, async () => {
      throw new Error("offline never fetches keys");
    });

  it("takes a token whatever its signature, the rest checked", async () => {
    const result = await offline()(event(await bearer({}, otherKey)));
    expect(effects(result)["/PUT/*"]).toBe("Allow");
  });

  it.each([
    ["another issuer", { iss: "https://elsewhere.example" }, "5m"],
    ["another audience", { aud: "someone-else" }, "5m"],
    ["expired", {}, "-1m"],
    ["not yet valid", { nbf: inSeconds(600) }, "5m"],
  ])("still refuses %s", async (_label, claims, expiresIn) => {
    const refused = event(await bearer(claims, otherKey, expiresIn));
    await expect(offline()(refused)).rejects.toThrow(/^Unauthorized$/);
  });

  // The clock tolerance is 5 s either way.
  it.each([
    ["expired 2 s ago", true, "exp", -2],
    ["valid from a minute ago", true, "nbf", -60],
    ["valid in 2 s", true, "nbf", 2],
    ["expired 8 s ago", false, "exp", -8],
    ["valid in 8 s", false, "nbf", 8],
  ])("a token %s is taken: %s", async (_label, taken, claim, seconds) => {
    const unsigned = await new SignJWT({ scope: SCOPE, [claim]: inSeconds(seconds) })
      .setProtectedHeader({ alg: "RS256" })
      .setIssuer(issuer)
      .setAudience(AUDIENCE)
      .sign(otherKey);
    const result = offline()(event(`Bearer ${unsigned}`));
    if (taken) expect(effects(await result)["/POST/*"]).toBe("Allow");
    else await expect(result).rejects.toThrow(/^Unauthorized$/);
  });

  it("still denies a write without the scope", async () => {
    const result = await offline()(event(await bearer({ scope: "openid" }, otherKey)));
    expect(effects(result)["/POST/*"]).toBe("Deny");
  });
});
