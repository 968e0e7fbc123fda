// Who may write, for the stage's own user pool: the pool's pre token generation trigger gives a
// signed-in member of a group the scopes that group holds. Tokens from a sign-in without OAuth
// (`npm run token`'s AdminInitiateAuth) carry no custom scope of their own, and the gateway's
// Cognito authorizer asks for `blog/write` on writes and `blog/read` on reads (AUTH_READS).
import type { PreTokenGenerationV2TriggerEvent } from "aws-lambda";

/** Each group's scopes, e.g. `{ writers: ["blog/write", "blog/read"] }` (config/auth.cjs). */
export type GroupScopes = Record<string, string[]>;

/** The scopes the groups of a user (none when Cognito names no group) hold together, each once. */
export function scopesOfGroups(
  groups: readonly string[] | undefined,
  groupScopes: GroupScopes,
): string[] {
  const held = Object.entries(groupScopes).filter(([group]) => groups?.includes(group));
  return [...new Set(held.flatMap(([, scopes]) => scopes))].sort();
}

/** The trigger: adds the user's groups' scopes to the access token, and nothing else. */
export function grantScopes(groupScopes: GroupScopes) {
  return async (event: PreTokenGenerationV2TriggerEvent) => {
    const scopesToAdd = scopesOfGroups(
      event.request.groupConfiguration.groupsToOverride,
      groupScopes,
    );
    event.response = {
      claimsAndScopeOverrideDetails: { accessTokenGeneration: { scopesToAdd } },
    };
    return event;
  };
}
