// The stage's own Cognito user pool, with AUTH_USER_POOL=true: the pool, a resource server with
// the write and read scopes, a machine-to-machine client (client-credentials grant, with a secret)
// allowed them, and the pool's domain, which serves the token endpoint. Read by serverless.yml as
// one more fragment of `resources`; config/auth.cjs points the Cognito authorizer at the pool.
const { POOL_SCOPE, POOL_READ_SCOPE, POOL_WRITE_SCOPE, readAuth } = require("./auth.cjs");
const { SERVICE } = require("./names.cjs");

/**
 * The domain prefix: AUTH_POOL_DOMAIN, or the service, stage and account id, which makes it
 * unique in the region as Cognito requires. Lowercase letters, digits and inner hyphens only.
 */
function domainPrefix(stage, env = process.env) {
  const chosen = (env.AUTH_POOL_DOMAIN ?? "").trim();
  if (chosen === "") {
    const safeStage = stage.toLowerCase().replace(/[^a-z0-9-]/g, "-");
    return { "Fn::Sub": `${SERVICE}-${safeStage}-\${AWS::AccountId}` };
  }
  if (!/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(chosen) || /aws|amazon|cognito/.test(chosen)) {
    throw new Error(
      `AUTH_POOL_DOMAIN must be 1-63 lowercase letters, digits and inner hyphens, without ` +
        `"aws", "amazon" or "cognito"; got ${JSON.stringify(chosen)}`,
    );
  }
  return chosen;
}

/** The pool's resources and outputs for `stage`. */
function userPoolResources(stage, env = process.env) {
  // Removing the stack deletes the pool (docs/deploying.md says why): it holds no posts, and a
  // kept pool could not be taken over by a later deploy, which always creates a new one.
  const owned = { DeletionPolicy: "Delete", UpdateReplacePolicy: "Delete" };
  return {
    Resources: {
      UserPool: {
        Type: "AWS::Cognito::UserPool",
        ...owned,
        Properties: {
          UserPoolName: `${SERVICE}-${stage}`,
          // Nobody signs themselves up: a writer is someone an administrator added.
          AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
          UsernameAttributes: ["email"],
          AutoVerifiedAttributes: ["email"],
        },
      },
      UserPoolResourceServer: {
        Type: "AWS::Cognito::UserPoolResourceServer",
        ...owned,
        Properties: {
          UserPoolId: { Ref: "UserPool" },
          Identifier: POOL_SCOPE.resourceServer,
          Name: `${SERVICE}-${stage}`,
          Scopes: [
            { ScopeName: POOL_SCOPE.name, ScopeDescription: "Create, update and delete posts" },
            // Asked only of reads with AUTH_READS=true; the writer client may read too.
            { ScopeName: POOL_SCOPE.read, ScopeDescription: "List and get posts" },
          ],
        },
      },
      UserPoolWriterClient: {
        Type: "AWS::Cognito::UserPoolClient",
        // The scope must exist before a client may be allowed it.
        DependsOn: "UserPoolResourceServer",
        ...owned,
        Properties: {
          UserPoolId: { Ref: "UserPool" },
          ClientName: `${SERVICE}-${stage}-writer`,
          GenerateSecret: true,
          AllowedOAuthFlowsUserPoolClient: true,
          AllowedOAuthFlows: ["client_credentials"],
          AllowedOAuthScopes: [POOL_WRITE_SCOPE, POOL_READ_SCOPE],
          // No user may sign in through this client; it only trades its secret for a token.
          ExplicitAuthFlows: ["ALLOW_REFRESH_TOKEN_AUTH"],
          AccessTokenValidity: 60,
          TokenValidityUnits: { AccessToken: "minutes" },
        },
      },
      UserPoolDomain: {
        Type: "AWS::Cognito::UserPoolDomain",
        ...owned,
        Properties: { UserPoolId: { Ref: "UserPool" }, Domain: domainPrefix(stage, env) },
      },
    },
    Outputs: {
      TokenEndpoint: {
        Description: "Where the writer client trades its id and secret for an access token",
        Value: {
          "Fn::Sub": "https://${UserPoolDomain}.auth.${AWS::Region}.amazoncognito.com/oauth2/token",
        },
      },
      WriterClientId: {
        Description: "The machine-to-machine client allowed the write scope",
        Value: { Ref: "UserPoolWriterClient" },
      },
      UserPoolId: { Description: "The stage's user pool", Value: { Ref: "UserPool" } },
      WriteScope: { Description: "The scope writes require", Value: POOL_WRITE_SCOPE },
    },
  };
}

module.exports = {
  domainPrefix,
  userPoolResources,
  /** The `resources` fragment serverless.yml merges: the pool when AUTH_USER_POOL=true, else nothing. */
  resources: async ({ resolveVariable }) => {
    if (!readAuth()?.userPool) return {};
    return userPoolResources(await resolveVariable("sls:stage"));
  },
};
