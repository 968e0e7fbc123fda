// Who may write, for the stage's own user pool: the pool's pre token generation trigger gives a
// signed-in member of a group the scopes that group holds. Tokens from a sign-in without OAuth
// (`npm run token`'s AdminInitiateAuth) carry no custom scope of their own, and the gateway's
// Cognito authorizer asks for `blog/write` on writes and `blog/read` on reads (AUTH_READS).
import type { PreTokenGenerationV2TriggerEvent } from "aws-lambda";

/** Each group's scopes, e.g. `{ writers: ["blog/write", "blog/read"] }` (config/auth.cjs). */
export type GroupScopes = Record<string, string[]>;

/** The scopes the groups of a user hold together, each once, in a stable order. */
export function scopesOfGroups(groups: readonly string[], groupScopes: GroupScopes): string[] {
  const held = groups.flatMap((group) =>
    Object.hasOwn(groupScopes, group) ? (groupScopes[group] ?? []) : [],
  );
  return [...new Set(held)].sort();
}

/** The trigger: adds the user's groups' scopes to the access token, and nothing else. */
export function grantScopes(groupScopes: GroupScopes) {
  return async (event: PreTokenGenerationV2TriggerEvent) => {
    const groups = event.request.groupConfiguration.groupsToOverride ?? [];
    const scopesToAdd = scopesOfGroups(groups, groupScopes);
    event.response = {
      claimsAndScopeOverrideDetails: { accessTokenGeneration: { scopesToAdd } },
    };
    return event;
  };
}
