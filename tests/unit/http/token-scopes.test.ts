// The pool's scope trigger: a member's access token gets the scopes of their groups, and nothing
// else; a user in no such group gets none (the gateway then refuses their writes with 401).
import type { PreTokenGenerationV2TriggerEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { grantScopes, scopesOfGroups } from "../../../lib/http/token-scopes.js";

const GROUPS = { writers: ["blog/write", "blog/read"], readers: ["blog/read"] };

/** A V2_0 trigger event as Cognito sends it for a sign-in, for a user in `groups`. */
const signIn = (groups: string[] | undefined) =>
  ({
    version: "2",
    triggerSource: "TokenGeneration_Authentication",
    region: "us-east-1",
    userPoolId: "us-east-1_Pool",
    userName: "deploy",
    callerContext: { awsSdkVersion: "1", clientId: "client-1" },
    request: { userAttributes: {}, groupConfiguration: { groupsToOverride: groups } },
    response: { claimsAndScopeOverrideDetails: {} },
  }) as unknown as PreTokenGenerationV2TriggerEvent;

describe("scopesOfGroups", () => {
  const BOTH = ["blog/read", "blog/write"];
  it.each([
    [["writers"], BOTH],
    [["readers"], ["blog/read"]],
    [["readers", "writers"], BOTH],
    [["editors"], []],
    [["toString", "__proto__"], []],
    [[], []],
  ])("gives %j the scopes %j", (groups, scopes) => {
    expect(scopesOfGroups(groups, GROUPS)).toEqual(scopes);
  });
});

describe("grantScopes", () => {
  it.each([
    [["writers"], ["blog/read", "blog/write"]],
    [undefined, []],
  ])("adds the scopes of a user in %j to the access token alone: %j", async (groups, scopes) => {
    const answered = await grantScopes(GROUPS)(signIn(groups));
    const accessTokenGeneration = { scopesToAdd: scopes };
    expect(answered.response).toEqual({ claimsAndScopeOverrideDetails: { accessTokenGeneration } });
  });
});
