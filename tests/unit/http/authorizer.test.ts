// Unit: the token authorizer of the write routes with real tokens (jose), its keys found through
// an issuer's discovery document served on loopback: every way to a 401, the 403 of a write
// without the scope, the allowed policy, and the offline check that skips only the signature.
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { APIGatewayAuthorizerResult } from "aws-lambda";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
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

const event = (authorizationToken: string) => ({
  type: "TOKEN" as const,
  authorizationToken,
  methodArn: METHOD_ARN,
});

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
    const authorize = writeAuthorizer(settings(), recordingLogger().logger);
    const result = await authorize(event(`Bearer ${await token()}`));
    expect(result.principalId).toBe("author-1");
    expect(effects(result)).toEqual({
      "/GET/*": "Allow",
      "/POST/*": "Allow",
      "/PUT/*": "Allow",
      "/DELETE/*": "Allow",
    });
    expect(result.context).toEqual({ scope: `openid ${SCOPE}` });
  });

  it.each([
    ["its `scp` list", { scope: undefined, scp: ["x", SCOPE] }],
    ["a Cognito access token's client_id instead of aud", { aud: "", client_id: "other-app" }],
  ])("is allowed through %s", async (_label, claims) => {
    const authorize = writeAuthorizer(settings(), recordingLogger().logger);
    const result = await authorize(event(`Bearer ${await token(claims)}`));
    expect(effects(result)["/POST/*"]).toBe("Allow");
  });

  it("without the write scope may read but not write: a write meets a Deny (403)", async () => {
    const authorize = writeAuthorizer(settings(), recordingLogger().logger);
    const result = await authorize(event(`Bearer ${await token({ scope: "openid" })}`));
    expect(effects(result)).toEqual({
      "/GET/*": "Allow",
      "/POST/*": "Deny",
      "/PUT/*": "Deny",
      "/DELETE/*": "Deny",
    });
  });

  it("needs no scope when none is set", async () => {
    const authorize = writeAuthorizer(
      settings({ writeScope: undefined }),
      recordingLogger().logger,
    );
    const result = await authorize(event(`Bearer ${await token({ scope: undefined })}`));
    expect(effects(result)["/DELETE/*"]).toBe("Allow");
  });
});

describe("no valid token is Unauthorized (401)", () => {
  const refused: [string, () => Promise<string>][] = [
    ["no header", async () => ""],
    ["not Bearer", async () => `Basic ${await token()}`],
    ["not a JWT", async () => "Bearer not-a-token"],
    ["another key's signature", async () => `Bearer ${await token({}, otherKey)}`],
    ["another issuer", async () => `Bearer ${await token({ iss: "https://elsewhere.example" })}`],
    ["another audience", async () => `Bearer ${await token({ aud: "someone-else" })}`],
    ["expired", async () => `Bearer ${await token({}, signingKey, "-1m")}`],
    [
      "not yet valid",
      async () => `Bearer ${await token({ nbf: Math.floor(Date.now() / 1000) + 600 })}`,
    ],
  ];
  it.each(refused)("%s", async (_label, header) => {
    const authorize = writeAuthorizer(settings(), recordingLogger().logger);
    await expect(authorize(event(await header()))).rejects.toThrow(/^Unauthorized$/);
  });

  it("no authorizationToken in the event at all", async () => {
    const authorize = writeAuthorizer(settings(), recordingLogger().logger);
    const { authorizationToken: _none, ...bare } = event("");
    await expect(authorize(bare as never)).rejects.toThrow(/^Unauthorized$/);
  });
});

describe("a token for several audiences", () => {
  it("is allowed when one of them is the service's, and refused when none is", async () => {
    const authorize = writeAuthorizer(settings(), recordingLogger().logger);
    const among = await token({ aud: ["someone-else", AUDIENCE] as never });
    expect(effects(await authorize(event(`Bearer ${among}`)))["/POST/*"]).toBe("Allow");
    const none = await token({ aud: ["someone-else", "a-third"] as never });
    await expect(authorize(event(`Bearer ${none}`))).rejects.toThrow(/^Unauthorized$/);
  });
});

describe("the issuer's keys", () => {
  it("are found once through its discovery document, then kept", async () => {
    const before = discoveries;
    const keys = issuerKeys(issuer);
    const authorize = writeAuthorizer(settings(), recordingLogger().logger, keys);
    await authorize(event(`Bearer ${await token()}`));
    await authorize(event(`Bearer ${await token()}`));
    expect(discoveries - before).toBe(1);
  });

  it("are found from an issuer written with a trailing slash", async () => {
    const authorize = writeAuthorizer(
      settings(),
      recordingLogger().logger,
      issuerKeys(`${issuer}//`),
    );
    const result = await authorize(event(`Bearer ${await token()}`));
    expect(result.principalId).toBe("author-1");
  });

  it("fail the check when the discovery document names no key set", async () => {
    const keys = issuerKeys(`${issuer}/nokeys`);
    const authorize = writeAuthorizer(settings(), recordingLogger().logger, keys);
    await expect(authorize(event(`Bearer ${await token()}`))).rejects.toThrow(/names no jwks_uri/);
  });

  it("unreachable, fail the check as the server's fault (500), logged, and are asked for again", async () => {
    const { logger, lines } = recordingLogger();
    const authorize = writeAuthorizer(settings({ issuer: `${issuer}/missing` }), logger);
    const bearer = `Bearer ${await token({ iss: `${issuer}/missing` })}`;
    await expect(authorize(event(bearer))).rejects.toThrow(/discovery document answered 404/);
    await expect(authorize(event(bearer))).rejects.toThrow(/discovery document answered 404/);
    expect(lines.map((line) => line.message)).toEqual(["token check failed", "token check failed"]);
  });
});

describe("a key lookup that throws what is not an Error", () => {
  it("fails the check as the server's fault, logged with what was thrown", async () => {
    const { logger, lines } = recordingLogger();
    const keys = (async () => {
      throw "key store down";
    }) as never;
    const authorize = writeAuthorizer(settings(), logger, keys);
    await expect(authorize(event(`Bearer ${await token()}`))).rejects.toBe("key store down");
    expect(lines[0]?.fields).toEqual({ error: { name: "", message: "key store down" } });
  });
});

describe("offline, under serverless-offline", () => {
  const offline = () =>
    writeAuthorizer(settings({ verifySignature: false }), recordingLogger().logger, async () => {
      throw new Error("offline never fetches keys");
    });

  it("takes a token whatever its signature, the rest checked", async () => {
    const result = await offline()(event(`Bearer ${await token({}, otherKey)}`));
    expect(effects(result)["/PUT/*"]).toBe("Allow");
  });

  it.each([
    ["another issuer", { iss: "https://elsewhere.example" }, "5m"],
    ["another audience", { aud: "someone-else" }, "5m"],
    ["expired", {}, "-1m"],
    ["not yet valid", { nbf: Math.floor(Date.now() / 1000) + 600 }, "5m"],
  ])("still refuses %s", async (_label, claims, expiresIn) => {
    const bearer = `Bearer ${await token(claims, otherKey, expiresIn)}`;
    await expect(offline()(event(bearer))).rejects.toThrow(/^Unauthorized$/);
  });

  it("takes a token that expired within the clock tolerance, or became valid before now", async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const claims of [{ exp: now - 2 }, { nbf: now - 60 }, { nbf: now + 2 }]) {
      const unsigned = await new SignJWT({ scope: SCOPE, ...claims })
        .setProtectedHeader({ alg: "RS256" })
        .setIssuer(issuer)
        .setAudience(AUDIENCE)
        .sign(otherKey);
      const result = await offline()(event(`Bearer ${unsigned}`));
      expect(effects(result)["/POST/*"], JSON.stringify(claims)).toBe("Allow");
    }
  });

  it("refuses a token that expired past the tolerance or is not valid until past it", async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const claims of [{ exp: now - 8 }, { nbf: now + 8 }]) {
      const unsigned = await new SignJWT({ scope: SCOPE, ...claims })
        .setProtectedHeader({ alg: "RS256" })
        .setIssuer(issuer)
        .setAudience(AUDIENCE)
        .sign(otherKey);
      await expect(offline()(event(`Bearer ${unsigned}`)), JSON.stringify(claims)).rejects.toThrow(
        /^Unauthorized$/,
      );
    }
  });

  it("still denies a write without the scope", async () => {
    const result = await offline()(event(`Bearer ${await token({ scope: "openid" }, otherKey)}`));
    expect(effects(result)["/POST/*"]).toBe("Deny");
  });
});
