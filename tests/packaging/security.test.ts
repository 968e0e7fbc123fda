// Packaging tests, offline: the authorizers (the pool's, or the token function for an issuer),
// throttles and cost ceilings, and the guard that refuses a deployment with open writes.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import {
  API_FUNCTION_IDS,
  type Resource,
  type Template,
  methodsByRoute,
  ofType,
  SHARED_SETTINGS,
  packagedBeforeAll,
  runServerless,
  templateEnv,
} from "../helpers/package.js";

const AUTH = {
  AUTH_ISSUER_URL: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example",
  AUTH_AUDIENCE: "app-client-1, app-client-2",
};
const WRITE_ROUTES = ["DELETE /api/post/{post_pk}", "POST /api/post", "PUT /api/post/{post_pk}"];
const READ_ROUTES = ["GET /api/post", "GET /api/post/{post_pk}"];

const packages = packagedBeforeAll({
  open: {},
  guarded: { ...AUTH, AUTH_WRITE_SCOPE: "blog/write" },
  guardedReads: { ...AUTH, AUTH_READS: "true" },
  pooled: SHARED_SETTINGS.pooled,
});
const open = () => packages.open.template;
const guarded = () => packages.guarded.template;
const pooled = () => packages.pooled.template;

/** Each route with the authorizer and scopes it carries. */
const routeAuth = (template: Template) =>
  Object.fromEntries(
    Object.entries(methodsByRoute(template)).map(([route, m]) => [
      route,
      { type: m.AuthorizationType, authorizer: m.AuthorizerId, scopes: m.AuthorizationScopes },
    ]),
  );

/** The template's one authorizer, of `type`, on the three write routes and no other. */
function expectWritesOnly(template: Template, type: string, scopes?: string[]) {
  const [[authorizerId] = []] = ofType(template, "AWS::ApiGateway::Authorizer");
  const routes = routeAuth(template);
  for (const key of WRITE_ROUTES) {
    expect(routes[key], key).toEqual({ type, authorizer: { Ref: authorizerId }, scopes });
  }
  for (const key of READ_ROUTES) expect(routes[key]?.type, key).toBe("NONE");
}

describe("the token authorizer (AUTH_ISSUER_URL)", () => {
  it("is absent when no issuer is set: every route open, no authorizer function", () => {
    expect(ofType(open(), "AWS::ApiGateway::Authorizer")).toEqual([]);
    // The five routes themselves: serverless-package.test.ts.
    for (const auth of Object.values(routeAuth(open()))) {
      expect(auth).toEqual({ type: "NONE", authorizer: undefined, scopes: undefined });
    }
    for (const id of ["AuthorizeWritesLambdaFunction", "AuthorizeWritesRole"]) {
      expect(open().Resources[id], id).toBeUndefined();
    }
  });

  it("is the authorizeWrites function on the Authorization header, its verdict cached 5 minutes", () => {
    const [[, authorizer] = [], ...more] = ofType(guarded(), "AWS::ApiGateway::Authorizer");
    expect(more).toEqual([]);
    const properties = authorizer!.Properties;
    expect(properties).toMatchObject({
      Type: "TOKEN",
      IdentitySource: "method.request.header.Authorization",
      AuthorizerResultTtlInSeconds: 300,
    });
    expect(JSON.stringify(properties.AuthorizerUri)).toContain("AuthorizeWritesLambdaFunction");
  });

  it("hands the function the issuer, the audiences and the scope, and lets only it log", () => {
    const fn = guarded().Resources.AuthorizeWritesLambdaFunction as Resource;
    expect(fn.Properties.Environment.Variables).toMatchObject({
      AUTH_ISSUER_URL: AUTH.AUTH_ISSUER_URL,
      AUTH_AUDIENCE: "app-client-1,app-client-2",
      AUTH_WRITE_SCOPE: "blog/write",
    });
    expect(fn.Properties.Role).toEqual({ "Fn::GetAtt": ["AuthorizeWritesRole", "Arn"] });
    expect(JSON.stringify(guarded().Resources.AuthorizeWritesRole)).not.toContain("dynamodb:");
  });

  it("guards exactly the write routes, or all five with AUTH_READS=true", () => {
    expectWritesOnly(guarded(), "CUSTOM");
    const types = Object.values(routeAuth(packages.guardedReads.template)).map((auth) => auth.type);
    expect(types).toEqual(Array(5).fill("CUSTOM"));
  });
});

describe("the stage's own user pool (AUTH_USER_POOL=true)", () => {
  const resource = (id: string) => pooled().Resources[id];

  it("is absent unless asked for: no pool, no scope trigger", () => {
    for (const template of [open(), guarded(), packages.guardedReads.template]) {
      const ids = Object.keys(template.Resources);
      expect(ids.filter((id) => /^(UserPool|GrantScopes)/.test(id))).toEqual([]);
      expect(template.Outputs?.UserPoolId).toBeUndefined();
    }
  });

  it("creates an Essentials pool only administrators add people to, deleted with the stack", () => {
    expect(resource("UserPool")).toMatchObject({
      Type: "AWS::Cognito::UserPool",
      DeletionPolicy: "Delete",
      Properties: {
        UserPoolName: "blog-post-api-test",
        UserPoolTier: "ESSENTIALS",
        AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      },
    });
  });

  it("has a resource server with the write and read scopes, and a domain for sign-in pages", () => {
    expect(resource("UserPoolResourceServer")?.Properties).toMatchObject({
      UserPoolId: { Ref: "UserPool" },
      Identifier: "blog",
      Scopes: [
        expect.objectContaining({ ScopeName: "write" }),
        expect.objectContaining({ ScopeName: "read" }),
      ],
    });
    expect(resource("UserPoolDomain")?.Properties).toEqual({
      UserPoolId: { Ref: "UserPool" },
      Domain: { "Fn::Sub": "blog-post-api-test-${AWS::AccountId}" },
    });
  });

  it("gives the writers' and readers' access tokens their scopes through a V2_0 trigger", () => {
    const trigger = { "Fn::GetAtt": ["GrantScopesLambdaFunction", "Arn"] };
    expect(resource("UserPool")?.Properties.LambdaConfig).toEqual({
      PreTokenGenerationConfig: { LambdaArn: trigger, LambdaVersion: "V2_0" },
    });
    const { Variables } = resource("GrantScopesLambdaFunction")!.Properties.Environment;
    expect(JSON.parse(Variables.GROUP_SCOPES)).toEqual({
      writers: ["blog/write", "blog/read"],
      readers: ["blog/read"],
    });
    expect(resource("GrantScopesPermission")?.Properties).toEqual({
      Action: "lambda:InvokeFunction",
      FunctionName: trigger,
      Principal: "cognito-idp.amazonaws.com",
      SourceArn: { "Fn::GetAtt": ["UserPool", "Arn"] },
    });
    const groups = ofType(pooled(), "AWS::Cognito::UserPoolGroup").map(([, g]) => g.Properties);
    expect(groups.map((group) => group.GroupName).sort()).toEqual(["readers", "writers"]);
  });

  it("signs people in through a client with no secret and no OAuth grant, for admins only", () => {
    const client = resource("UserPoolSignInClient")?.Properties;
    expect(client).toMatchObject({
      UserPoolId: { Ref: "UserPool" },
      GenerateSecret: false,
      ExplicitAuthFlows: ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
    });
    expect(client?.AllowedOAuthFlows).toBeUndefined();
  });

  it("has a client for machines, billed by the month, only with AUTH_MACHINE_CLIENT=true", () => {
    expect(resource("UserPoolMachineClient")).toMatchObject({
      DependsOn: ["UserPoolResourceServer"],
      Properties: {
        GenerateSecret: true,
        AllowedOAuthFlowsUserPoolClient: true,
        AllowedOAuthFlows: ["client_credentials"],
        AllowedOAuthScopes: ["blog/write", "blog/read"],
        ExplicitAuthFlows: ["ALLOW_REFRESH_TOKEN_AUTH"],
      },
    });
    // Without it (tests/scripts/cost.test.ts prices that stage at $0 idle).
    const { userPoolResources } = createRequire(import.meta.url)("../../config/user-pool.cjs") as {
      userPoolResources(stage: string, env: NodeJS.ProcessEnv): Template;
    };
    const withoutMachine = userPoolResources("test", templateEnv({ AUTH_USER_POOL: "true" }));
    expect(withoutMachine.Resources.UserPoolMachineClient).toBeUndefined();
    expect(withoutMachine.Outputs?.TokenEndpoint).toBeUndefined();
  });

  it("is API Gateway's Cognito authorizer over the pool, no function of its own, on the writes", () => {
    const [[, authorizer] = [], ...more] = ofType(pooled(), "AWS::ApiGateway::Authorizer");
    expect(more).toEqual([]);
    expect(authorizer?.Properties).toMatchObject({
      Type: "COGNITO_USER_POOLS",
      IdentitySource: "method.request.header.Authorization",
      ProviderARNs: [{ "Fn::GetAtt": ["UserPool", "Arn"] }],
    });
    expect(resource("AuthorizeWritesLambdaFunction")).toBeUndefined();
    expectWritesOnly(pooled(), "COGNITO_USER_POOLS", ["blog/write"]);
  });

  it("outputs the API's URL, the pool, its clients, the writers' group and the token endpoint", () => {
    expect(pooled().Outputs).toMatchObject({
      ServiceEndpoint: { Value: expect.anything() },
      UserPoolId: { Value: { Ref: "UserPool" } },
      SignInClientId: { Value: { Ref: "UserPoolSignInClient" } },
      WriterGroup: { Value: "writers" },
      WriteScope: { Value: "blog/write" },
      TokenEndpoint: {
        Value: {
          "Fn::Sub": "https://${UserPoolDomain}.auth.${AWS::Region}.amazoncognito.com/oauth2/token",
        },
      },
      MachineClientId: { Value: { Ref: "UserPoolMachineClient" } },
    });
  });
});

describe("throttles and cost ceilings", () => {
  const stageRoutes = (template: Template) =>
    template.Resources.ApiGatewayStage?.Properties.MethodSettings[0];
  const ceilings = (template: Template) =>
    ofType(template, "AWS::DynamoDB::Table").map(([, table]) => table.Properties);
  const reserved = (template: Template) =>
    Object.fromEntries(
      ofType(template, "AWS::Lambda::Function")
        .filter(([id]) => API_FUNCTION_IDS.includes(id))
        .map(([id, fn]) => [id, fn.Properties.ReservedConcurrentExecutions]),
    );

  it("throttles every route of the stage: 100 requests a second, bursts of 200, by default", () => {
    expect(stageRoutes(open())).toEqual({
      HttpMethod: "*",
      ResourcePath: "/*",
      MetricsEnabled: false,
      DataTraceEnabled: false,
      ThrottlingRateLimit: 100,
      ThrottlingBurstLimit: 200,
    });
    expect(stageRoutes(pooled())).toMatchObject({
      ThrottlingRateLimit: 25,
      ThrottlingBurstLimit: 50,
    });
  });

  it("caps both on-demand tables' throughput: 1,000 read and 200 write units a second by default", () => {
    for (const [template, reads, writes] of [
      [open(), 1000, 200],
      [pooled(), 400, 40],
    ] as const) {
      const OnDemandThroughput = { MaxReadRequestUnits: reads, MaxWriteRequestUnits: writes };
      const table = expect.objectContaining({ BillingMode: "PAY_PER_REQUEST", OnDemandThroughput });
      expect(ceilings(template)).toEqual([table, table]);
    }
  });

  it("reserves concurrency only for the functions RESERVED_CONCURRENCY names", () => {
    expect(Object.values(reserved(open()))).toEqual(Array(5).fill(undefined));
    expect(reserved(pooled())).toEqual({
      ListPostsLambdaFunction: 20,
      GetPostLambdaFunction: undefined,
      CreatePostLambdaFunction: 5,
      UpdatePostLambdaFunction: undefined,
      DeletePostLambdaFunction: undefined,
    });
  });
});

describe("no silently open deployment", () => {
  it("refuses to deploy without an authorizer, before packaging or calling AWS", async () => {
    // Credentials that fail at the first AWS call, which would show in the output.
    const noAws = {
      AWS_ACCESS_KEY_ID: "none",
      AWS_SECRET_ACCESS_KEY: "none",
      AWS_REGION: "us-east-1",
    };
    const failure = await runServerless(["deploy", "--stage", "prod"], templateEnv(noAws)).then(
      () => undefined,
      (error: Error) => error.message,
    );
    // The refusal's wording is unit-tested (tests/unit/deployment-settings.test.ts).
    expect(failure).toMatch(/Refusing to deploy: no authorizer is configured/);
    expect(failure).not.toMatch(/Packaging|security token|credentials/i);
  });

  // Quiet with ALLOW_ANONYMOUS_WRITES=true: openWritesProblem, tests/unit/deployment-settings.test.ts.
  it("only warns when packaging with open writes, and is quiet when they are guarded", () => {
    expect(packages.open.output).toMatch(/This package has open writes: no authorizer/);
    expect(packages.open.output).toMatch(/Service packaged/);
    expect(packages.guarded.output).not.toMatch(/open writes/);
  });
});
