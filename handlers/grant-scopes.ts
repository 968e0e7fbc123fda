// Lambda entry for the user pool's pre token generation trigger (AUTH_USER_POOL=true): its
// groups' scopes read and checked at init.
import { buildScopeGrant } from "../lib/app/authorizer.js";

/** The function Cognito invokes before it issues a token. */
export const handler = buildScopeGrant();
