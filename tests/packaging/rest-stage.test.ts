// Packaging tests: the REST API's stage (config/rest-stage.cjs), the settings every function shares
// and the gateway's own answers, with defaults and with every stage setting turned the other way.
import { describe, expect, it } from "vitest";
import {
  API_FUNCTION_IDS,
  type Resource,
  type Template,
  ofType,
  packagedBeforeAll,
} from "../helpers/package.js";

const ORIGINS = "https://blog.example,https://admin.example";
const packages = packagedBeforeAll({
  plain: {},
  configured: {
    CORS_ORIGINS: ORIGINS,
    WAF_RATE_LIMIT: "500",
    ACCESS_LOGS: "true",
    TRACING: "true",
    LOG_RETENTION_DAYS: "7",
    LOG_LEVEL: "error",
  },
});
const plain = () => packages.plain.template;
const configured = () => packages.configured.template;
const stage = (template: Template) => template.Resources.ApiGatewayStage as Resource;
const functions = (template: Template) =>
  ofType(template, "AWS::Lambda::Function").map(([id, fn]) => [id, fn.Properties] as const);

describe("the stage", () => {
  it("is one explicit AWS::ApiGateway::Stage of the deployment, which names no stage itself", () => {
    expect(ofType(plain(), "AWS::ApiGateway::Stage")).toHaveLength(1);
    const [[deploymentId, deployment] = []] = ofType(plain(), "AWS::ApiGateway::Deployment");
    expect(deployment?.Properties.StageName).toBeUndefined();
    expect(stage(plain()).Properties).toMatchObject({
      StageName: "test",
      RestApiId: { Ref: "ApiGatewayRestApi" },
      DeploymentId: { Ref: deploymentId },
    });
    // No empty resource policy on the REST API.
    expect(plain().Resources.ApiGatewayRestApi?.Properties).not.toHaveProperty("Policy");
  });

  it("traces and logs access only when asked", () => {
    expect(stage(plain()).Properties.TracingEnabled).toBe(false);
    expect(stage(plain()).Properties.AccessLogSetting).toBeUndefined();
    expect(ofType(plain(), "AWS::ApiGateway::Account")).toEqual([]);
    expect(stage(configured()).Properties.TracingEnabled).toBe(true);
  });

  it("writes JSON access lines that hold the request, never a body, header, token or query", () => {
    const setting = stage(configured()).Properties.AccessLogSetting;
    expect(setting.DestinationArn).toEqual({ "Fn::GetAtt": ["ApiGatewayAccessLogGroup", "Arn"] });
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
  });

  it("sets the account's logging role for access logs, and keeps it when the stack goes", () => {
    const account = configured().Resources.ApiGatewayAccount as Resource;
    expect(account.Properties.CloudWatchRoleArn).toEqual({
      "Fn::GetAtt": ["ApiGatewayLoggingRole", "Arn"],
    });
    for (const kept of [account, configured().Resources.ApiGatewayLoggingRole]) {
      // Replaced or removed alike: the account's role may serve other APIs of the account.
      expect(kept).toMatchObject({ DeletionPolicy: "Retain", UpdateReplacePolicy: "Retain" });
    }
    expect(stage(configured()).DependsOn).toEqual(["ApiGatewayAccount"]);
  });
});

describe("the settings every function shares", () => {
  it.each([
    ["defaults", plain, 30, 0, "INFO"],
    ["settings", configured, 7, 1, "ERROR"],
  ] as const)(
    "with %s, keeps each function's and the access logs' group LOG_RETENTION_DAYS, logs JSON at LOG_LEVEL",
    (_, template, days, accessLogs, level) => {
      const groups = ofType(template(), "AWS::Logs::LogGroup").map(([, group]) => group.Properties);
      const retentions = groups.map((group) => group.RetentionInDays);
      expect(retentions).toEqual(Array(functions(template()).length + accessLogs).fill(days));
      expect(functions(template()).length).toBeGreaterThanOrEqual(5);
      for (const [id, fn] of functions(template())) {
        expect(fn.LoggingConfig, id).toEqual({
          LogFormat: "JSON",
          ApplicationLogLevel: level,
          SystemLogLevel: "INFO",
        });
      }
    },
  );

  it("answers preflights only with CORS_ORIGINS, at the gateway, and hands the functions the list", () => {
    const preflights = (template: Template) =>
      ofType(template, "AWS::ApiGateway::Method")
        .map(([, method]) => method.Properties)
        .filter((method) => method.HttpMethod === "OPTIONS");
    expect(preflights(plain())).toEqual([]);
    // One per path, answering the caller's origin when it is one of the list.
    const answered = preflights(configured());
    expect(answered).toHaveLength(2);
    for (const preflight of answered) {
      expect(preflight.Integration.Type).toBe("MOCK");
      const [response] = preflight.Integration.IntegrationResponses;
      expect(response?.ResponseParameters).toMatchObject({
        "method.response.header.Access-Control-Allow-Origin": "'https://blog.example'",
        "method.response.header.Access-Control-Allow-Headers":
          "'Authorization,Content-Type,Idempotency-Key,If-None-Match'",
      });
      expect(response?.ResponseTemplates["application/json"]).toContain("admin[.]example");
    }
    // The functions add CORS to their own answers, from the same list.
    for (const id of API_FUNCTION_IDS) {
      const { Variables } = configured().Resources[id]!.Properties.Environment;
      expect(Variables.CORS_ORIGINS, id).toBe(ORIGINS);
    }
  });
});

describe("the gateway's own answers", () => {
  const responses = (template: Template) =>
    Object.fromEntries(
      ofType(template, "AWS::ApiGateway::GatewayResponse").map(([, r]) => [
        r.Properties.ResponseType as string,
        r.Properties,
      ]),
    );

  const NO_CACHE = { "X-Content-Type-Options": "'nosniff'", "Cache-Control": "'no-store'" };
  // A 401 asks for a bearer token, a 429 says when to retry.
  const bearer = { "WWW-Authenticate": "'Bearer'" };
  it.each([
    ["MISSING_AUTHENTICATION_TOKEN", "404", "Not found: no such route", {}],
    ["RESOURCE_NOT_FOUND", "404", "Not found: no such route", {}],
    ["UNAUTHORIZED", "401", "Unauthorized: send a valid bearer token in Authorization", bearer],
    ["ACCESS_DENIED", "403", "Forbidden: the token does not allow this", {}],
    ["THROTTLED", "429", "Too many requests: slow down and retry", { "Retry-After": "'1'" }],
    ["REQUEST_TOO_LARGE", "413", "Request too large for the API (10 MB at most)", {}],
  ])("%s answers %s with its detail as JSON", (type, status, detail, headers) => {
    const response = responses(plain())[type];
    expect(response?.StatusCode).toBe(status);
    // The throttle's names the spending limit, when it is on (config/gateway-responses.cjs).
    expect(JSON.parse(response?.ResponseTemplates["application/json"] ?? "")).toEqual({
      detail: expect.stringContaining(detail),
    });
    for (const [name, value] of Object.entries({ ...NO_CACHE, ...headers })) {
      expect(response?.ResponseParameters[`gatewayresponse.header.${name}`], name).toBe(value);
    }
  });

  it("gives any other 4xx and 5xx the gateway's message as the detail", () => {
    for (const type of ["DEFAULT_4XX", "DEFAULT_5XX"]) {
      const response = responses(plain())[type];
      expect(response?.StatusCode).toBeUndefined();
      expect(response?.ResponseTemplates["application/json"]).toBe(
        '{"detail": $context.error.messageString}',
      );
    }
  });

  it("carry CORS only with CORS_ORIGINS: the caller's origin among several", () => {
    for (const response of Object.values(responses(plain()))) {
      expect(Object.keys(response.ResponseParameters).join()).not.toMatch(/Access-Control/);
    }
    for (const response of Object.values(responses(configured()))) {
      expect(response.ResponseParameters).toMatchObject({
        "gatewayresponse.header.Access-Control-Allow-Origin": "method.request.header.origin",
        "gatewayresponse.header.Vary": "'Origin'",
      });
    }
  });
});

describe("the per-client limit (WAF)", () => {
  const acl = () => configured().Resources.WebAcl!.Properties;

  it("is off by default, billed by the month as it is: no web ACL, no association", () => {
    const types = Object.values(plain().Resources).map((resource) => resource.Type);
    expect(types.filter((type) => type.startsWith("AWS::WAFv2::"))).toEqual([]);
  });

  it("with WAF_RATE_LIMIT=500: one rate-based rule per client address, 500 a minute", () => {
    expect(acl()).toMatchObject({ Scope: "REGIONAL", DefaultAction: { Allow: {} } });
    expect(acl().Rules.map((rule: { Statement: unknown }) => rule.Statement)).toEqual([
      { RateBasedStatement: { Limit: 500, EvaluationWindowSec: 60, AggregateKeyType: "IP" } },
    ]);
    // No managed rule group: their SQL and XSS rules would refuse posts that quote code.
    expect(JSON.stringify(acl().Rules)).not.toContain("ManagedRuleGroupStatement");
  });

  it("answers a client over the limit 429 with a detail, never 403", () => {
    const custom = acl().Rules[0]?.Action.Block.CustomResponse;
    expect(custom).toMatchObject({
      ResponseCode: 429,
      ResponseHeaders: [{ Name: "Retry-After", Value: "60" }],
    });
    const body = acl().CustomResponseBodies[custom?.CustomResponseBodyKey];
    expect(body?.ContentType).toBe("APPLICATION_JSON");
    expect(JSON.parse(body?.Content ?? "")).toEqual({
      detail: "Too many requests from this address: at most 500 a minute; retry in a minute",
    });
  });

  it("is associated with this stage, once the stage exists", () => {
    const association = configured().Resources.WebAclAssociation as Resource;
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
