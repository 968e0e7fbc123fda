// Unit: the token authorizer's and the scope trigger's settings, read once from their
// environment, failing in one line.
import { describe, expect, it } from "vitest";
import type { PreTokenGenerationV2TriggerEvent } from "aws-lambda";
import {
  buildAuthorizer,
  buildScopeGrant,
  readAuthorizerSettings,
  readGroupScopes,
} from "../../../lib/app/authorizer.js";

const BASE = { AUTH_ISSUER_URL: " https://issuer.example ", AUTH_AUDIENCE: " a , ,b " };

describe("readAuthorizerSettings", () => {
  it("reads the issuer, the audiences and the scope, trimmed, and checks signatures on AWS", () => {
    const read = { issuer: "https://issuer.example", audiences: ["a", "b"], verifySignature: true };
    const scoped = readAuthorizerSettings({ ...BASE, AUTH_WRITE_SCOPE: " blog/write " });
    expect(scoped).toEqual({ ...read, writeScope: "blog/write" });
    expect(readAuthorizerSettings(BASE).writeScope).toBeUndefined();
    expect(readAuthorizerSettings({ ...BASE, AUTH_WRITE_SCOPE: "" }).writeScope).toBeUndefined();
  });

  it("skips signatures only under serverless-offline, where loopback issuers are allowed", () => {
    for (const host of ["127.0.0.1:9000", "localhost:9000", "[::1]:9000"]) {
      const local = { ...BASE, AUTH_ISSUER_URL: `http://${host}`, IS_OFFLINE: "true" };
      expect(readAuthorizerSettings(local).verifySignature, host).toBe(false);
    }
  });

  it("builds the authorizer from the environment, refusing a token without a header", async () => {
    const event = { type: "TOKEN", authorizationToken: "", methodArn: "arn:x:y/dev/GET/api/post" };
    await expect(buildAuthorizer(BASE)(event as never)).rejects.toThrow(/^Unauthorized$/);
    expect(() => buildAuthorizer({})).toThrow(/AUTH_ISSUER_URL/);
  });

  it.each([
    [
      { ...BASE, IS_OFFLINE: "true", AWS_EXECUTION_ENV: "AWS_Lambda_nodejs24.x" },
      /IS_OFFLINE=true on Lambda/,
    ],
    [{ ...BASE, AUTH_ISSUER_URL: "" }, /AUTH_ISSUER_URL must be the issuer's URL, not ""/],
    [{ ...BASE, AUTH_ISSUER_URL: "http://issuer.example" }, /AUTH_ISSUER_URL must be https/],
    [{ ...BASE, AUTH_ISSUER_URL: "http://127.0.0.1:9000" }, /AUTH_ISSUER_URL must be https/],
    [{ ...BASE, AUTH_AUDIENCE: " , " }, /AUTH_AUDIENCE must name at least one audience/],
    [{ AUTH_ISSUER_URL: BASE.AUTH_ISSUER_URL }, /AUTH_AUDIENCE must name at least one audience/],
  ])("refuses %o", (env, message) => {
    expect(() => readAuthorizerSettings(env)).toThrow(message);
  });
});

describe("the scope trigger's GROUP_SCOPES", () => {
  it("maps each group to its scopes, which the trigger its environment configures grants", async () => {
    const GROUP_SCOPES = '{"writers":["blog/write","blog/read"],"readers":["blog/read"]}';
    const scopes = { writers: ["blog/write", "blog/read"], readers: ["blog/read"] };
    expect(readGroupScopes({ GROUP_SCOPES })).toEqual(scopes);
    const event = {
      request: { userAttributes: {}, groupConfiguration: { groupsToOverride: ["writers"] } },
      response: { claimsAndScopeOverrideDetails: {} },
    } as unknown as PreTokenGenerationV2TriggerEvent;
    const answered = await buildScopeGrant({ GROUP_SCOPES })(event);
    const granted = answered.response.claimsAndScopeOverrideDetails.accessTokenGeneration;
    expect(granted).toEqual({ scopesToAdd: ["blog/read", "blog/write"] });
  });

  // Unset too: the trigger never starts without its groups.
  it.each([
    ...[undefined, "", "nope", "[]", "null", '{"writers":"blog/write"}', '{"writers":[1]}'],
    ...['{"writers":["blog/write", 1]}', '{"writers":["blog/write"],"readers":"blog/read"}'],
  ])("refuses GROUP_SCOPES=%j, naming it", (GROUP_SCOPES) => {
    expect(() => readGroupScopes({ GROUP_SCOPES })).toThrow(
      new Error(`GROUP_SCOPES must map groups to lists of scopes, not ${GROUP_SCOPES ?? ""}`),
    );
  });
});
