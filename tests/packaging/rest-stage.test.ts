// Packaging tests: what config/rest-stage.cjs adds to the REST API's stage in the template: the
// gateway's own answers in the service's shape, the per-client WAF limit, access logs and
// tracing as settings, each checked on the packaged template.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Resource, type Template, packageInto, templateEnv } from "../helpers/package.js";

const ORIGIN = "https://blog.example";
let dirs: string[] = [];
/** Defaults only; then every stage setting turned the other way. */
let plain: Template;
let configured: Template;

beforeAll(async () => {
  const package_ = async (settings: Record<string, string>) => {
    const dir = await mkdtemp(join(tmpdir(), "blog-post-stage-"));
    dirs.push(dir);
    return packageInto(dir, templateEnv(settings));
  };
  [plain, configured] = await Promise.all([
    package_({}),
    package_({
      CORS_ORIGINS: `${ORIGIN},https://admin.example`,
      WAF_RATE_LIMIT: "500",
      ACCESS_LOGS: "true",
      TRACING: "true",
      LOG_RETENTION_DAYS: "7",
    }),
  ]);
});
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  dirs = [];
});

const ofType = (template: Template, type: string) =>
  Object.entries(template.Resources).filter(([, r]) => r.Type === type);
const stage = (template: Template) => template.Resources.ApiGatewayStage as Resource;

describe("the stage", () => {
  it("is one explicit AWS::ApiGateway::Stage of the deployment, which names no stage itself", () => {
    expect(ofType(plain, "AWS::ApiGateway::Stage")).toHaveLength(1);
    const [[deploymentId, deployment] = []] = ofType(plain, "AWS::ApiGateway::Deployment");
    expect(deployment?.Properties.StageName).toBeUndefined();
    expect(stage(plain).Properties).toMatchObject({
      StageName: "test",
      RestApiId: { Ref: "ApiGatewayRestApi" },
      DeploymentId: { Ref: deploymentId },
    });
  });

  it("traces and logs access only when asked", () => {
    expect(stage(plain).Properties.TracingEnabled).toBe(false);
    expect(stage(plain).Properties.AccessLogSetting).toBeUndefined();
    expect(ofType(plain, "AWS::ApiGateway::Account")).toEqual([]);
    expect(stage(configured).Properties.TracingEnabled).toBe(true);
  });

  it("writes JSON access lines that hold the request, never a body, header, token or query", () => {
    const setting = stage(configured).Properties.AccessLogSetting as {
      DestinationArn: unknown;
      Format: string;
    };
    expect(setting.DestinationArn).toEqual({
      "Fn::GetAtt": ["ApiGatewayAccessLogGroup", "Arn"],
    });
    const fields = JSON.parse(setting.Format) as Record<string, string>;
    expect(fields).toMatchObject({
      requestId: "$context.requestId",
      ip: "$context.identity.sourceIp",
      status: "$context.status",
      wafStatus: "$context.wafResponseCode",
    });
    for (const value of Object.values(fields)) {
      expect(value).toMatch(/^\$context\.[A-Za-z.]+$/);
      expect(value).not.toMatch(/header|body|querystring|authorization|apiKey/i);
    }
    expect(configured.Resources.ApiGatewayAccessLogGroup?.Properties.RetentionInDays).toBe(7);
  });

  it("sets the account's logging role for access logs, and keeps it when the stack goes", () => {
    const account = configured.Resources.ApiGatewayAccount as Resource;
    expect(account.Properties.CloudWatchRoleArn).toEqual({
      "Fn::GetAtt": ["ApiGatewayLoggingRole", "Arn"],
    });
    for (const kept of [account, configured.Resources.ApiGatewayLoggingRole]) {
      // Replaced or removed alike: the account's role may serve other APIs of the account.
      expect(kept).toMatchObject({ DeletionPolicy: "Retain", UpdateReplacePolicy: "Retain" });
    }
    expect(stage(configured).DependsOn).toEqual(["ApiGatewayAccount"]);
  });

  it("has no empty resource policy on the REST API", () => {
    expect(plain.Resources.ApiGatewayRestApi?.Properties).not.toHaveProperty("Policy");
  });
});

describe("the gateway's own answers", () => {
  const responses = (template: Template) =>
    Object.fromEntries(
      ofType(template, "AWS::ApiGateway::GatewayResponse").map(([, r]) => [
        r.Properties.ResponseType as string,
        r.Properties as {
          StatusCode?: string;
          ResponseTemplates: Record<string, string>;
          ResponseParameters: Record<string, string>;
        },
      ]),
    );

  it.each([
    ["MISSING_AUTHENTICATION_TOKEN", "404", "Not found: no such route"],
    ["RESOURCE_NOT_FOUND", "404", "Not found: no such route"],
    ["UNAUTHORIZED", "401", "Unauthorized: send a valid bearer token in Authorization"],
    ["ACCESS_DENIED", "403", "Forbidden: the token does not allow this"],
    ["THROTTLED", "429", "Too many requests: slow down and retry"],
    ["REQUEST_TOO_LARGE", "413", "Request too large for the API (10 MB at most)"],
  ])("%s answers %s with its detail as JSON", (type, status, detail) => {
    const response = responses(plain)[type];
    expect(response?.StatusCode).toBe(status);
    expect(JSON.parse(response?.ResponseTemplates["application/json"] ?? "")).toEqual({ detail });
    expect(response?.ResponseParameters).toMatchObject({
      "gatewayresponse.header.X-Content-Type-Options": "'nosniff'",
      "gatewayresponse.header.Cache-Control": "'no-store'",
    });
  });

  it("gives any other 4xx and 5xx the gateway's message as the detail", () => {
    for (const type of ["DEFAULT_4XX", "DEFAULT_5XX"]) {
      const response = responses(plain)[type];
      expect(response?.StatusCode).toBeUndefined();
      expect(response?.ResponseTemplates["application/json"]).toBe(
        '{"detail": $context.error.messageString}',
      );
    }
  });

  it("asks for a bearer token on a 401 and says when to retry on a 429", () => {
    const all = responses(plain);
    expect(all.UNAUTHORIZED?.ResponseParameters["gatewayresponse.header.WWW-Authenticate"]).toBe(
      "'Bearer'",
    );
    expect(all.THROTTLED?.ResponseParameters["gatewayresponse.header.Retry-After"]).toBe("'1'");
  });

  it("carry CORS only with CORS_ORIGINS: the caller's origin among several", () => {
    for (const response of Object.values(responses(plain))) {
      expect(Object.keys(response.ResponseParameters).join()).not.toMatch(/Access-Control/);
    }
    for (const response of Object.values(responses(configured))) {
      expect(response.ResponseParameters).toMatchObject({
        "gatewayresponse.header.Access-Control-Allow-Origin": "method.request.header.origin",
        "gatewayresponse.header.Vary": "'Origin'",
      });
    }
  });
});

describe("the per-client limit (WAF)", () => {
  const acl = (template: Template) => template.Resources.WebAcl as Resource;

  it("is off by default, billed by the month as it is: no web ACL, no association", () => {
    expect(ofType(plain, "AWS::WAFv2::WebACL")).toEqual([]);
    expect(ofType(plain, "AWS::WAFv2::WebACLAssociation")).toEqual([]);
  });

  it("with WAF_RATE_LIMIT=500: one rate-based rule per client address, 500 a minute", () => {
    const properties = acl(configured).Properties as {
      Scope: string;
      DefaultAction: unknown;
      Rules: { Statement: unknown; Action: unknown }[];
    };
    expect(properties.Scope).toBe("REGIONAL");
    expect(properties.DefaultAction).toEqual({ Allow: {} });
    expect(properties.Rules).toHaveLength(1);
    expect(properties.Rules[0]?.Statement).toEqual({
      RateBasedStatement: { Limit: 500, EvaluationWindowSec: 60, AggregateKeyType: "IP" },
    });
    // No managed rule group: their SQL and XSS rules would refuse posts that quote code.
    expect(JSON.stringify(properties.Rules)).not.toContain("ManagedRuleGroupStatement");
  });

  it("answers a client over the limit 429 with a detail, never 403", () => {
    const properties = acl(configured).Properties as {
      CustomResponseBodies: Record<string, { ContentType: string; Content: string }>;
      Rules: { Action: { Block: { CustomResponse: Record<string, unknown> } } }[];
    };
    const custom = properties.Rules[0]?.Action.Block.CustomResponse;
    expect(custom).toMatchObject({
      ResponseCode: 429,
      ResponseHeaders: [{ Name: "Retry-After", Value: "60" }],
    });
    const body = properties.CustomResponseBodies[custom?.CustomResponseBodyKey as string];
    expect(body?.ContentType).toBe("APPLICATION_JSON");
    expect(JSON.parse(body?.Content ?? "")).toEqual({
      detail: "Too many requests from this address: at most 500 a minute; retry in a minute",
    });
  });

  it("is associated with this stage, once the stage exists", () => {
    const association = configured.Resources.WebAclAssociation as Resource;
    expect(association.DependsOn).toEqual(["ApiGatewayStage"]);
    expect(association.Properties).toEqual({
      ResourceArn: {
        "Fn::Sub":
          "arn:${AWS::Partition}:apigateway:${AWS::Region}::/restapis/${ApiGatewayRestApi}/stages/test",
      },
      WebACLArn: { "Fn::GetAtt": ["WebAcl", "Arn"] },
    });
  });
});
