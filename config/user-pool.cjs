// The stage's own Cognito user pool, with AUTH_USER_POOL=true: the pool (Essentials, whose 10,000
// monthly active users are free), a resource server with the write and read scopes, the writers
// and readers groups, whose members' access tokens get those scopes from the grantScopes trigger,
// a sign-in client without a secret for `npm run token`'s admin sign-in, and the pool's domain,
// which serves people's sign-in pages. Nothing here is billed while nobody signs in. A machine
// client (client-credentials grant, billed by the month) only with AUTH_MACHINE_CLIENT=true.
// Read by serverless.yml as one more fragment of `resources`; config/auth.cjs points the Cognito
// authorizer at the pool.
const { POOL_GROUP_SCOPES, POOL_SCOPE, POOL_READ_SCOPE, POOL_WRITE_SCOPE } = require("./auth.cjs");
const { WRITER_GROUP, readAuth } = require("./auth.cjs");
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

/** The machine-to-machine client and its outputs: billed by the month, so only when asked. */
function machineClient(stage, owned) {
  const client = {
    Type: "AWS::Cognito::UserPoolClient",
    // The scope must exist before a client may be allowed it.
    DependsOn: "UserPoolResourceServer",
    ...owned,
    Properties: {
      UserPoolId: { Ref: "UserPool" },
      ClientName: `${SERVICE}-${stage}-machine`,
      GenerateSecret: true,
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ["client_credentials"],
      AllowedOAuthScopes: [POOL_WRITE_SCOPE, POOL_READ_SCOPE],
      // No user may sign in through this client; it only trades its secret for a token.
      ExplicitAuthFlows: ["ALLOW_REFRESH_TOKEN_AUTH"],
      AccessTokenValidity: 60,
      TokenValidityUnits: { AccessToken: "minutes" },
    },
  };
  const outputs = {
    TokenEndpoint: {
      Description: "Where the machine client trades its id and secret for an access token",
      Value: {
        "Fn::Sub": "https://${UserPoolDomain}.auth.${AWS::Region}.amazoncognito.com/oauth2/token",
      },
    },
    MachineClientId: {
      Description: "The machine-to-machine client allowed the write scope",
      Value: { Ref: "UserPoolMachineClient" },
    },
  };
  return { client, outputs };
}

/** A group of the pool, whose members' tokens get the scopes config/auth.cjs gives it. */
const group = (name, owned) => ({
  Type: "AWS::Cognito::UserPoolGroup",
  ...owned,
  Properties: {
    UserPoolId: { Ref: "UserPool" },
    GroupName: name,
    Description: `Access tokens of its members carry ${POOL_GROUP_SCOPES[name].join(" and ")}`,
  },
});

/** The pool's resources and outputs for `stage`. */
function userPoolResources(stage, env = process.env) {
  // Removing the stack deletes the pool (docs/deploying.md says why): it holds no posts, and a
  // kept pool could not be taken over by a later deploy, which always creates a new one.
  const owned = { DeletionPolicy: "Delete", UpdateReplacePolicy: "Delete" };
  const machine = readAuth(env)?.machineClient ? machineClient(stage, owned) : undefined;
  const trigger = { "Fn::GetAtt": ["GrantScopesLambdaFunction", "Arn"] };
  return {
    Resources: {
      UserPool: {
        Type: "AWS::Cognito::UserPool",
        ...owned,
        Properties: {
          UserPoolName: `${SERVICE}-${stage}`,
          UserPoolTier: "ESSENTIALS",
          // Nobody signs themselves up: a writer is someone an administrator added.
          AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
          UsernameAttributes: ["email"],
          AutoVerifiedAttributes: ["email"],
          // V2_0: the trigger may add scopes to access tokens (Essentials and up).
          LambdaConfig: { PreTokenGenerationConfig: { LambdaArn: trigger, LambdaVersion: "V2_0" } },
        },
      },
      GrantScopesPermission: {
        Type: "AWS::Lambda::Permission",
        Properties: {
          Action: "lambda:InvokeFunction",
          FunctionName: trigger,
          Principal: "cognito-idp.amazonaws.com",
          SourceArn: { "Fn::GetAtt": ["UserPool", "Arn"] },
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
            // Asked only of reads with AUTH_READS=true; a writer may read too.
            { ScopeName: POOL_SCOPE.read, ScopeDescription: "List and get posts" },
          ],
        },
      },
      UserPoolWritersGroup: group(WRITER_GROUP, owned),
      UserPoolReadersGroup: group("readers", owned),
      UserPoolSignInClient: {
        Type: "AWS::Cognito::UserPoolClient",
        ...owned,
        Properties: {
          UserPoolId: { Ref: "UserPool" },
          ClientName: `${SERVICE}-${stage}-sign-in`,
          // No secret to keep: only a caller with AWS credentials allowed the admin sign-in
          // (cognito-idp:AdminInitiateAuth on this pool) can sign a user in through it.
          GenerateSecret: false,
          ExplicitAuthFlows: ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
          PreventUserExistenceErrors: "ENABLED",
          AccessTokenValidity: 60,
          IdTokenValidity: 60,
          TokenValidityUnits: { AccessToken: "minutes", IdToken: "minutes" },
        },
      },
      ...(machine && { UserPoolMachineClient: machine.client }),
      UserPoolDomain: {
        Type: "AWS::Cognito::UserPoolDomain",
        ...owned,
        Properties: { UserPoolId: { Ref: "UserPool" }, Domain: domainPrefix(stage, env) },
      },
    },
    Outputs: {
      UserPoolId: { Description: "The stage's user pool", Value: { Ref: "UserPool" } },
      SignInClientId: {
        Description: "The client npm run token signs the deploy user in through",
        Value: { Ref: "UserPoolSignInClient" },
      },
      WriterGroup: { Description: "The group whose members may write", Value: WRITER_GROUP },
      WriteScope: { Description: "The scope writes require", Value: POOL_WRITE_SCOPE },
      ...machine?.outputs,
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
