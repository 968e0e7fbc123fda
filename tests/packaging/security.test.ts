// Packaging tests: the authorizers (the pool's Cognito authorizer, or the token authorizer
// function for an issuer), throttles and cost ceilings in the template, and the guard that
// refuses a deployment with open writes. All offline: nothing here reaches AWS.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Resource,
  type Template,
  packageWithOutput,
  runServerless,
  templateEnv,
} from "../helpers/package.js";

const AUTH = {
  AUTH_ISSUER_URL: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example",
  AUTH_AUDIENCE: "app-client-1, app-client-2",
};
const WRITE_ROUTES = ["DELETE /api/post/{post_pk}", "POST /api/post", "PUT /api/post/{post_pk}"];
const READ_ROUTES = ["GET /api/post", "GET /api/post/{post_pk}"];

const folders: string[] = [];
/** Packages with exactly these settings (and no others from the shell). */
async function packaged(settings: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), "blog-post-security-"));
  folders.push(dir);
  return packageWithOutput(dir, templateEnv(settings));
}

let open: Template;
let openOutput = "";
let guarded: Template;
let guardedReads: Template;
let pooled: Template;
let pooledMachine: Template;

beforeAll(async () => {
  // At once: each packaging runs in its own copy of the service (tests/helpers/package.ts).
  const [plain, withAuth, withReads, withPool, withMachine] = await Promise.all([
    packaged({}),
    packaged({
      ...AUTH,
      AUTH_WRITE_SCOPE: "blog/write",
      API_RATE_LIMIT: "25",
      API_BURST_LIMIT: "50",
      TABLE_MAX_READ_UNITS: "400",
      TABLE_MAX_WRITE_UNITS: "40",
      RESERVED_CONCURRENCY: "listPosts=20, createPost=5",
    }),
    packaged({ ...AUTH, AUTH_READS: "true" }),
    packaged({ AUTH_USER_POOL: "true" }),
    packaged({ AUTH_USER_POOL: "true", AUTH_MACHINE_CLIENT: "true" }),
  ]);
  ({ template: open, output: openOutput } = plain);
  [guarded, guardedReads, pooled] = [withAuth.template, withReads.template, withPool.template];
  pooledMachine = withMachine.template;
});

afterAll(async () => {
  for (const dir of folders) await rm(dir, { recursive: true, force: true });
});

const ofType = (template: Template, type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

/** The path of an API Gateway resource, from its PathPart and its parents'. */
function resourcePath(template: Template, id: string): string {
  const resource = template.Resources[id];
  if (!resource) return "";
  const parent = resource.Properties.ParentId as { Ref?: string };
  const part = String(resource.Properties.PathPart);
  return parent.Ref ? `${resourcePath(template, parent.Ref)}/${part}` : `/${part}`;
}

/** Each route (every method but the preflights) with the authorizer and scopes it carries. */
function routeAuth(template: Template) {
  return Object.fromEntries(
    ofType(template, "AWS::ApiGateway::Method")
      .filter(([, { Properties: method }]) => method.HttpMethod !== "OPTIONS")
      .map(([, { Properties: method }]) => [
        `${method.HttpMethod as string} ${resourcePath(template, (method.ResourceId as { Ref: string }).Ref)}`,
        {
          type: method.AuthorizationType,
          authorizer: method.AuthorizerId,
          scopes: method.AuthorizationScopes,
        },
      ]),
  );
}

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
    expect(ofType(open, "AWS::ApiGateway::Authorizer")).toEqual([]);
    const routes = routeAuth(open);
    expect(Object.keys(routes).sort()).toEqual([...READ_ROUTES, ...WRITE_ROUTES].sort());
    for (const auth of Object.values(routes)) {
      expect(auth).toEqual({ type: "NONE", authorizer: undefined, scopes: undefined });
    }
    expect(open.Resources.AuthorizeWritesLambdaFunction).toBeUndefined();
    expect(open.Resources.AuthorizeWritesRole).toBeUndefined();
  });

  it("is the authorizeWrites function on the Authorization header, its verdict cached 5 minutes", () => {
    const authorizers = ofType(guarded, "AWS::ApiGateway::Authorizer");
    expect(authorizers).toHaveLength(1);
    const properties = authorizers[0]?.[1].Properties as Record<string, unknown>;
    expect(properties).toMatchObject({
      Type: "TOKEN",
      IdentitySource: "method.request.header.Authorization",
      AuthorizerResultTtlInSeconds: 300,
    });
    expect(JSON.stringify(properties.AuthorizerUri)).toContain("AuthorizeWritesLambdaFunction");
  });

  it("hands the function the issuer, the audiences and the scope, and lets only it log", () => {
    const fn = guarded.Resources.AuthorizeWritesLambdaFunction as Resource;
    expect((fn.Properties.Environment as { Variables: object }).Variables).toMatchObject({
      AUTH_ISSUER_URL: AUTH.AUTH_ISSUER_URL,
      AUTH_AUDIENCE: "app-client-1,app-client-2",
      AUTH_WRITE_SCOPE: "blog/write",
    });
    expect(fn.Properties.Role).toEqual({ "Fn::GetAtt": ["AuthorizeWritesRole", "Arn"] });
    const statements = JSON.stringify(guarded.Resources.AuthorizeWritesRole?.Properties);
    expect(statements).not.toContain("dynamodb:");
  });

  it("guards exactly the write routes", () => {
    expectWritesOnly(guarded, "CUSTOM");
  });

  it("guards all five routes with AUTH_READS=true", () => {
    const routes = routeAuth(guardedReads);
    expect(Object.keys(routes)).toHaveLength(5);
    for (const [key, auth] of Object.entries(routes)) expect(auth.type, key).toBe("CUSTOM");
  });
});

describe("the stage's own user pool (AUTH_USER_POOL=true)", () => {
  const resource = (id: string) => pooled.Resources[id];

  it("is absent unless asked for", () => {
    for (const template of [open, guarded, guardedReads]) {
      expect(ofType(template, "AWS::Cognito::UserPool")).toEqual([]);
      expect(Object.keys(template.Resources).filter((id) => id.startsWith("UserPool"))).toEqual([]);
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
    expect(resource("UserPoolResourceServer")).toMatchObject({
      Type: "AWS::Cognito::UserPoolResourceServer",
      Properties: {
        UserPoolId: { Ref: "UserPool" },
        Identifier: "blog",
        Scopes: [
          expect.objectContaining({ ScopeName: "write" }),
          expect.objectContaining({ ScopeName: "read" }),
        ],
      },
    });
    expect(resource("UserPoolDomain")).toMatchObject({
      Type: "AWS::Cognito::UserPoolDomain",
      Properties: {
        UserPoolId: { Ref: "UserPool" },
        Domain: { "Fn::Sub": "blog-post-api-test-${AWS::AccountId}" },
      },
    });
  });

  it("gives the writers' and readers' access tokens their scopes through a V2_0 trigger", () => {
    expect(resource("UserPool")?.Properties.LambdaConfig).toEqual({
      PreTokenGenerationConfig: {
        LambdaArn: { "Fn::GetAtt": ["GrantScopesLambdaFunction", "Arn"] },
        LambdaVersion: "V2_0",
      },
    });
    const trigger = resource("GrantScopesLambdaFunction")?.Properties as {
      Environment: { Variables: Record<string, string> };
    };
    expect(JSON.parse(trigger.Environment.Variables.GROUP_SCOPES ?? "")).toEqual({
      writers: ["blog/write", "blog/read"],
      readers: ["blog/read"],
    });
    expect(resource("GrantScopesPermission")?.Properties).toEqual({
      Action: "lambda:InvokeFunction",
      FunctionName: { "Fn::GetAtt": ["GrantScopesLambdaFunction", "Arn"] },
      Principal: "cognito-idp.amazonaws.com",
      SourceArn: { "Fn::GetAtt": ["UserPool", "Arn"] },
    });
    const groups = ofType(pooled, "AWS::Cognito::UserPoolGroup").map(([, group]) => group);
    expect(groups.map((group) => group.Properties.GroupName).sort()).toEqual([
      "readers",
      "writers",
    ]);
    // Without the pool, nothing calls the trigger: the stage does without it.
    for (const template of [open, guarded]) {
      expect(template.Resources.GrantScopesLambdaFunction).toBeUndefined();
      expect(template.Resources.GrantScopesRole).toBeUndefined();
    }
  });

  it("signs people in through a client with no secret and no OAuth grant, for admins only", () => {
    expect(resource("UserPoolSignInClient")).toMatchObject({
      Type: "AWS::Cognito::UserPoolClient",
      Properties: {
        UserPoolId: { Ref: "UserPool" },
        GenerateSecret: false,
        ExplicitAuthFlows: ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
      },
    });
    expect(resource("UserPoolSignInClient")?.Properties.AllowedOAuthFlows).toBeUndefined();
  });

  it("has no client billed by the month unless AUTH_MACHINE_CLIENT=true asks for one", () => {
    const clients = (template: Template) =>
      ofType(template, "AWS::Cognito::UserPoolClient").map(([, client]) => client.Properties);
    const billed = (template: Template) =>
      clients(template).filter((client) =>
        (client.AllowedOAuthFlows as string[] | undefined)?.includes("client_credentials"),
      );
    expect(billed(pooled)).toEqual([]);
    expect(pooledMachine.Resources.UserPoolMachineClient).toMatchObject({
      DependsOn: ["UserPoolResourceServer"],
      Properties: {
        GenerateSecret: true,
        AllowedOAuthFlowsUserPoolClient: true,
        AllowedOAuthFlows: ["client_credentials"],
        AllowedOAuthScopes: ["blog/write", "blog/read"],
        ExplicitAuthFlows: ["ALLOW_REFRESH_TOKEN_AUTH"],
      },
    });
    expect(billed(pooledMachine)).toHaveLength(1);
  });

  it("is API Gateway's Cognito authorizer over the pool, with no function of its own", () => {
    const authorizers = ofType(pooled, "AWS::ApiGateway::Authorizer");
    expect(authorizers).toHaveLength(1);
    expect(authorizers[0]?.[1].Properties).toMatchObject({
      Type: "COGNITO_USER_POOLS",
      IdentitySource: "method.request.header.Authorization",
      ProviderARNs: [{ "Fn::GetAtt": ["UserPool", "Arn"] }],
    });
    expect(pooled.Resources.AuthorizeWritesLambdaFunction).toBeUndefined();
  });

  it("requires the write scope on exactly the three write routes", () => {
    expectWritesOnly(pooled, "COGNITO_USER_POOLS", ["blog/write"]);
  });

  it("outputs the API's URL, the pool, its sign-in client and writers' group", () => {
    expect(pooled.Outputs).toMatchObject({
      ServiceEndpoint: { Value: expect.anything() },
      UserPoolId: { Value: { Ref: "UserPool" } },
      SignInClientId: { Value: { Ref: "UserPoolSignInClient" } },
      WriterGroup: { Value: "writers" },
      WriteScope: { Value: "blog/write" },
    });
    expect(pooled.Outputs?.TokenEndpoint).toBeUndefined();
    expect(pooledMachine.Outputs).toMatchObject({
      TokenEndpoint: {
        Value: {
          "Fn::Sub": "https://${UserPoolDomain}.auth.${AWS::Region}.amazoncognito.com/oauth2/token",
        },
      },
      MachineClientId: { Value: { Ref: "UserPoolMachineClient" } },
    });
    expect(open.Outputs?.UserPoolId).toBeUndefined();
  });
});

describe("throttles and cost ceilings", () => {
  const stageRoutes = (template: Template) =>
    (template.Resources.ApiGatewayStage?.Properties.MethodSettings as unknown[])[0];
  const tables = (template: Template) => ofType(template, "AWS::DynamoDB::Table");
  const reserved = (template: Template) =>
    Object.fromEntries(
      ofType(template, "AWS::Lambda::Function")
        // The events' publishing function reads the stream, not requests: it is not throttled.
        .filter(([id]) => id !== "PublishEventsLambdaFunction")
        .map(([id, fn]: [string, Resource]) => [id, fn.Properties.ReservedConcurrentExecutions]),
    );

  it("throttles every route of the stage: 100 requests a second, bursts of 200, by default", () => {
    expect(stageRoutes(open)).toEqual({
      HttpMethod: "*",
      ResourcePath: "/*",
      MetricsEnabled: false,
      DataTraceEnabled: false,
      ThrottlingRateLimit: 100,
      ThrottlingBurstLimit: 200,
    });
    expect(stageRoutes(guarded)).toMatchObject({
      ThrottlingRateLimit: 25,
      ThrottlingBurstLimit: 50,
    });
  });

  it("caps both tables' on-demand throughput: 1,000 read and 200 write units a second by default", () => {
    expect(tables(open)).toHaveLength(2);
    for (const [id, table] of tables(open)) {
      expect(table.Properties.BillingMode, id).toBe("PAY_PER_REQUEST");
      expect(table.Properties.OnDemandThroughput, id).toEqual({
        MaxReadRequestUnits: 1000,
        MaxWriteRequestUnits: 200,
      });
    }
    for (const [id, table] of tables(guarded)) {
      expect(table.Properties.OnDemandThroughput, id).toEqual({
        MaxReadRequestUnits: 400,
        MaxWriteRequestUnits: 40,
      });
    }
  });

  it("reserves concurrency only for the functions RESERVED_CONCURRENCY names", () => {
    expect(Object.values(reserved(open))).toEqual(Array(5).fill(undefined));
    expect(reserved(guarded)).toEqual({
      ListPostsLambdaFunction: 20,
      GetPostLambdaFunction: undefined,
      CreatePostLambdaFunction: 5,
      UpdatePostLambdaFunction: undefined,
      DeletePostLambdaFunction: undefined,
    });
  });

  // One bad setting of each way serverless reads them: a value serverless.yml takes from a
  // config module, the stage plugin's check at start, the authorizer's and the pool's settings.
  // Each module's every check is a unit test (tests/unit/deployment-settings.test.ts); that each
  // setting reaches the template is shown by the packagings above.
  it.each([
    [{ API_RATE_LIMIT: "fast" }, /API_RATE_LIMIT must be a positive integer/],
    [{ WAF_RATE_LIMIT: "5" }, /WAF_RATE_LIMIT must be off or a whole number/],
    [{ AUTH_ISSUER_URL: "https://issuer.example" }, /AUTH_AUDIENCE must name at least one/],
    [{ AUTH_USER_POOL: "true", AUTH_POOL_DOMAIN: "Blog" }, /AUTH_POOL_DOMAIN must be 1-63/],
  ])("refuses %o with a message naming the setting", async (settings, message) => {
    await expect(
      runServerless(["print", "--stage", "test"], templateEnv(settings)),
    ).rejects.toThrow(message);
  });
});

describe("no silently open deployment", () => {
  // Credentials that would fail at the first AWS call: any such call would show in the output.
  const noAws = {
    AWS_ACCESS_KEY_ID: "none",
    AWS_SECRET_ACCESS_KEY: "none",
    AWS_REGION: "us-east-1",
  };

  it("refuses to deploy without an authorizer, before packaging or calling AWS", async () => {
    const failure = await runServerless(["deploy", "--stage", "prod"], templateEnv(noAws)).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(failure).toMatch(/Refusing to deploy: no authorizer is configured/);
    expect(failure).toMatch(/anyone on the internet could create, change and delete every post/);
    for (const way of ["AUTH_USER_POOL=true", "AUTH_ISSUER_URL", "ALLOW_ANONYMOUS_WRITES=true"]) {
      expect(failure).toContain(way);
    }
    expect(failure).not.toMatch(/Packaging|security token|credentials/i);
  });

  it("only warns when packaging with open writes, and is quiet when they are on purpose", async () => {
    expect(openOutput).toMatch(/This package has open writes: no authorizer is configured/);
    expect(openOutput).toMatch(/Service packaged/);
    const meant = await packaged({ ALLOW_ANONYMOUS_WRITES: "true" });
    expect(meant.output).not.toMatch(/open writes/);
    expect(meant.output).toMatch(/Service packaged/);
  }, 120_000);
});
