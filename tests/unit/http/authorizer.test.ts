// Unit: the write routes' token authorizer with real tokens (jose), its keys found through an
// issuer's discovery document on loopback: every way to a 401, the 403 of a write without the
// scope, the allowed policy, and the offline check that skips only the signature.
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { APIGatewayAuthorizerResult } from "aws-lambda";
import { type JWTVerifyGetKey, SignJWT, exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AuthorizerSettings,
  issuerKeys,
  writeAuthorizer,
} from "../../../lib/http/authorizer.js";
import { quietLogger, recordingLogger } from "../../helpers/handlers.js";

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
const authorizer = (overrides: Partial<AuthorizerSettings> = {}, keys?: JWTVerifyGetKey) =>
  writeAuthorizer(settings(overrides), quietLogger, keys);

const now = () => Math.floor(Date.now() / 1000);

/** A token signed by the issuer's key unless another is given; claims over good defaults. */
async function token(claims: Record<string, unknown> = {}, key = signingKey) {
  const defaults = { scope: `openid ${SCOPE}`, iss: issuer, aud: AUDIENCE, sub: "author-1" };
  return new SignJWT({ ...defaults, iat: now(), exp: now() + 300, ...claims })
    .setProtectedHeader({ alg: "RS256", kid: "k1" })
    .sign(key);
}

const event = (authorizationToken: string) => ({
  type: "TOKEN" as const,
  authorizationToken,
  methodArn: METHOD_ARN,
});
const bearer = async (...args: Parameters<typeof token>) => event(`Bearer ${await token(...args)}`);

/** The effect the policy gives each kind of method of the stage. */
const effects = (result: APIGatewayAuthorizerResult) =>
  Object.fromEntries(
    (result.policyDocument.Statement as { Effect: string; Resource: string[] }[]).flatMap(
      ({ Effect, Resource }) => Resource.map((resource) => [resource.replace(STAGE, ""), Effect]),
    ),
  );
/** Reads allowed, writes given `write`. */
const stage = (write: string) => ({
  "/GET/*": "Allow",
  "/POST/*": write,
  "/PUT/*": write,
  "/DELETE/*": write,
});

describe("a valid token", () => {
  it("is allowed to read and write, under its subject (if any), for the whole stage", async () => {
    const result = await authorizer()(await bearer());
    expect(result.principalId).toBe("author-1");
    expect(effects(result)).toEqual(stage("Allow"));
    expect(result.context).toEqual({ scope: `openid ${SCOPE}` });
    expect((await authorizer()(await bearer({ sub: undefined }))).principalId).toBe("unknown");
  });

  it.each([
    ["its `scp` list", { scope: undefined, scp: ["x", SCOPE] }, {}],
    ["a Cognito access token's client_id instead of aud", { aud: "", client_id: "other-app" }, {}],
    ["one of several audiences", { aud: ["someone-else", AUDIENCE] }, {}],
    ["no scope when none is set", { scope: undefined }, { writeScope: undefined }],
  ])("is allowed to write through %s", async (_label, claims, overrides) => {
    const result = await authorizer(overrides)(await bearer(claims));
    expect(effects(result)["/POST/*"]).toBe("Allow");
  });

  it("without the write scope may read but not write: a write meets a Deny (403)", async () => {
    const result = await authorizer()(await bearer({ scope: "openid" }));
    expect(effects(result)).toEqual(stage("Deny"));
  });
});

describe("no valid token is Unauthorized (401)", () => {
  const refused: [string, () => Promise<unknown>][] = [
    ["no header", async () => event("")],
    ["no token in the event at all", async () => ({ type: "TOKEN", methodArn: METHOD_ARN })],
    ["not Bearer", async () => event(`Basic ${await token()}`)],
    ["not a JWT", async () => event("Bearer not-a-token")],
    ["another key's signature", () => bearer({}, otherKey)],
    ["another issuer", () => bearer({ iss: "https://elsewhere.example" })],
    ["another audience", () => bearer({ aud: "someone-else" })],
    ["none of its audiences", () => bearer({ aud: ["someone-else", "a-third"] })],
    ["expired", () => bearer({ exp: now() - 60 })],
    ["not yet valid", () => bearer({ nbf: now() + 600 })],
  ];
  it.each(refused)("%s", async (_label, asked) => {
    await expect(authorizer()((await asked()) as never)).rejects.toThrow(/^Unauthorized$/);
  });
});

describe("the issuer's keys", () => {
  it("are found once through its discovery document, then kept", async () => {
    const before = discoveries;
    const authorize = authorizer({}, issuerKeys(issuer));
    await authorize(await bearer());
    await authorize(await bearer());
    expect(discoveries - before).toBe(1);
  });

  it("are found from an issuer written with a trailing slash", async () => {
    const result = await authorizer({}, issuerKeys(`${issuer}//`))(await bearer());
    expect(result.principalId).toBe("author-1");
  });

  it("fail the check when the discovery document names no key set", async () => {
    const authorize = authorizer({}, issuerKeys(`${issuer}/nokeys`));
    await expect(authorize(await bearer())).rejects.toThrow(/names no jwks_uri/);
  });

  it("unreachable, fail the check as the server's fault (500), logged, and are asked for again", async () => {
    const { logger, lines } = recordingLogger();
    const authorize = writeAuthorizer(settings({ issuer: `${issuer}/missing` }), logger);
    const asked = await bearer({ iss: `${issuer}/missing` });
    await expect(authorize(asked)).rejects.toThrow(/discovery document answered 404/);
    await expect(authorize(asked)).rejects.toThrow(/discovery document answered 404/);
    expect(lines.map((line) => line.message)).toEqual(["token check failed", "token check failed"]);
  });

  it("that throw what is not an Error fail the check as the server's fault, logged with it", async () => {
    const { logger, lines } = recordingLogger();
    const keys = (async () => Promise.reject("key store down")) as never;
    const authorize = writeAuthorizer(settings(), logger, keys);
    await expect(authorize(await bearer())).rejects.toBe("key store down");
    expect(lines[0]?.fields).toEqual({ error: { name: "", message: "key store down" } });
  });
});

describe("offline, under serverless-offline", () => {
  const offline = () =>
    authorizer({ verifySignature: false }, async () => {
      throw new Error("offline never fetches keys");
    });
  /** Asks with a token of another key, its `nbf` and `exp` given in seconds from now. */
  const ask = async (claims: Record<string, unknown>) => {
    const at = (key: "nbf" | "exp") =>
      typeof claims[key] === "number" ? { [key]: now() + claims[key] } : {};
    return offline()(await bearer({ ...claims, ...at("nbf"), ...at("exp") }, otherKey));
  };

  // The clock tolerance is 5 s either way.
  const taken: [string, Record<string, unknown>, string][] = [
    ["any signature, the rest checked", {}, "Allow"],
    ["a token expired within the clock tolerance", { exp: -2 }, "Allow"],
    ["a token valid from a minute ago, with no expiry", { nbf: -60, exp: undefined }, "Allow"],
    ["a token valid within the tolerance from now", { nbf: 2 }, "Allow"],
    ["a token without the scope, but denies its writes", { scope: "openid" }, "Deny"],
  ];
  it.each(taken)("takes %s", async (_label, claims, write) => {
    expect(effects(await ask(claims))).toEqual(stage(write));
  });

  it.each([
    ["another issuer", { iss: "https://elsewhere.example" }],
    ["another audience", { aud: "someone-else" }],
    ["a token expired past the tolerance", { exp: -8 }],
    ["a token not valid until past the tolerance", { nbf: 8, exp: undefined }],
  ])("still refuses %s", async (_label, claims) => {
    await expect(ask(claims)).rejects.toThrow(/^Unauthorized$/);
  });
});
