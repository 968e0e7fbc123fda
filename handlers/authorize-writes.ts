// Lambda entry for the token authorizer of the write routes (AUTH_ISSUER_URL): wired once per
// instance, its settings read and checked at init.
import { buildAuthorizer } from "../lib/app/authorizer.js";

/** The function API Gateway's authorizer invokes. */
export const handler = buildAuthorizer();
