// A serverless plugin: what the REST API's stage needs that osls has no setting for, or applies
// after deploy with SDK calls rather than in the template. It edits the compiled template once
// every resource is in it: an explicit stage (throttle, access logs, tracing), the gateway's own
// answers in the service's shape, the WAF web ACL, streaming's invoke permission, and nothing
// left holding an empty string where AWS wants a value.
const { join, relative, resolve } = require("node:path");
const { readAuth } = require("./auth.cjs");
const { positiveInteger } = require("./limits.cjs");
const { gatewayResponses } = require("./gateway-responses.cjs");
const { wafResources } = require("./waf.cjs");

const REST_API = "ApiGatewayRestApi";
/**
 * The functions only some stages call, each with its role and whether a stage's settings need it:
 * the check of an issuer's tokens (AUTH_ISSUER_URL), the own pool's scope trigger (AUTH_USER_POOL).
 */
const OPTIONAL_FUNCTIONS = [
  {
    name: "authorizeWrites",
    role: "AuthorizeWritesRole",
    needed: (auth) => auth?.userPool === false,
  },
  { name: "grantScopes", role: "GrantScopesRole", needed: (auth) => auth?.userPool === true },
];
/** The optional functions `env`'s stage does without. */
const unneededFunctions = (env = process.env) => {
  const auth = readAuth(env);
  return OPTIONAL_FUNCTIONS.filter(({ needed }) => !needed(auth));
};
const STAGE = "ApiGatewayStage";
const ACCESS_LOG_GROUP = "ApiGatewayAccessLogGroup";

/** What each access log line holds: the request, never a body, header, token or query. */
const ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: "$context.requestId",
  time: "$context.requestTimeEpoch",
  ip: "$context.identity.sourceIp",
  method: "$context.httpMethod",
  resource: "$context.resourcePath",
  status: "$context.status",
  bytes: "$context.responseLength",
  latencyMs: "$context.responseLatency",
  integrationLatencyMs: "$context.integrationLatency",
  wafStatus: "$context.wafResponseCode",
  authorizerError: "$context.authorizer.error",
  error: "$context.error.message",
  xrayTraceId: "$context.xrayTraceId",
});

/** A true/false setting; unset is `fallback`. */
function readSwitch(env, name, fallback) {
  const raw = (env[name] ?? "").trim();
  if (raw === "") return fallback;
  if (raw !== "true" && raw !== "false") {
    throw new Error(`${name} must be true or false, not ${JSON.stringify(raw)}`);
  }
  return raw === "true";
}

/** The stage's settings from the environment. */
function readStageSettings(env = process.env) {
  return {
    rateLimit: positiveInteger("API_RATE_LIMIT", env),
    burstLimit: positiveInteger("API_BURST_LIMIT", env),
    accessLogs: readSwitch(env, "ACCESS_LOGS", false),
    tracing: readSwitch(env, "TRACING", false),
    logRetentionDays: Number(env.LOG_RETENTION_DAYS || 30),
  };
}

/**
 * Replaces the stage the deployment makes implicitly with an AWS::ApiGateway::Stage that holds
 * the throttle (every method), tracing and, when on, access logs.
 */
function explicitStage(resources, stageName, settings) {
  const [deploymentId, deployment] = Object.entries(resources).find(
    ([, resource]) => resource.Type === "AWS::ApiGateway::Deployment",
  );
  delete deployment.Properties.StageName;
  const stage = {
    Type: "AWS::ApiGateway::Stage",
    Properties: {
      RestApiId: { Ref: REST_API },
      DeploymentId: { Ref: deploymentId },
      StageName: stageName,
      TracingEnabled: settings.tracing,
      MethodSettings: [
        {
          HttpMethod: "*",
          ResourcePath: "/*",
          ThrottlingRateLimit: settings.rateLimit,
          ThrottlingBurstLimit: settings.burstLimit,
          MetricsEnabled: false,
          DataTraceEnabled: false,
        },
      ],
    },
  };
  if (settings.accessLogs) {
    resources[ACCESS_LOG_GROUP] = {
      Type: "AWS::Logs::LogGroup",
      Properties: {
        LogGroupName: { "Fn::Sub": `/aws/api-gateway/\${AWS::StackName}` },
        RetentionInDays: settings.logRetentionDays,
      },
    };
    stage.Properties.AccessLogSetting = {
      DestinationArn: { "Fn::GetAtt": [ACCESS_LOG_GROUP, "Arn"] },
      Format: ACCESS_LOG_FORMAT,
    };
    Object.assign(resources, accountLoggingRole());
    stage.DependsOn = ["ApiGatewayAccount"];
  }
  resources[STAGE] = stage;
}

/**
 * REST APIs write logs through one role per account and region, set on API Gateway's account
 * settings. The stack sets it when access logs are on, and keeps it when removed, since other
 * APIs of the account may rely on it (docs/operating.md).
 */
function accountLoggingRole() {
  return {
    ApiGatewayLoggingRole: {
      Type: "AWS::IAM::Role",
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
      Properties: {
        AssumeRolePolicyDocument: {
          Version: "2012-10-17",
          Statement: [
            {
              Effect: "Allow",
              Principal: { Service: "apigateway.amazonaws.com" },
              Action: "sts:AssumeRole",
            },
          ],
        },
        ManagedPolicyArns: [
          {
            "Fn::Sub":
              "arn:${AWS::Partition}:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs",
          },
        ],
      },
    },
    ApiGatewayAccount: {
      Type: "AWS::ApiGateway::Account",
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
      Properties: { CloudWatchRoleArn: { "Fn::GetAtt": ["ApiGatewayLoggingRole", "Arn"] } },
    },
  };
}

/**
 * Decides a condition whose value is known when packaging (a setting): its resources kept without
 * it when it holds, removed when it does not, and the condition gone either way. A condition that
 * is always true or always false would only tell readers and linters (cfn-lint W8003) a riddle.
 */
function decideAtPackageTime(template, conditionName, holds) {
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (resource.Condition !== conditionName) continue;
    if (holds) delete resource.Condition;
    else delete template.Resources[id];
  }
  delete template.Conditions?.[conditionName];
  if (template.Conditions && Object.keys(template.Conditions).length === 0) {
    delete template.Conditions;
  }
}

/** An environment variable set to "" reads as unset (lib/app/config.ts): it is left out. */
function dropEmptyVariables(resources) {
  for (const resource of Object.values(resources)) {
    const variables =
      resource.Type === "AWS::Lambda::Function" && resource.Properties.Environment?.Variables;
    if (!variables) continue;
    for (const [name, value] of Object.entries(variables)) if (value === "") delete variables[name];
  }
}

/** Edits a compiled template in place; `stageName` is the stage being packaged. */
function editTemplate(template, { stageName, stackName, env = process.env }) {
  const resources = template.Resources;
  const api = resources[REST_API];
  // osls writes `Policy: ""` when no resource policy is set: AWS wants a document or nothing.
  if (api.Properties.Policy === "") delete api.Properties.Policy;
  explicitStage(resources, stageName, readStageSettings(env));
  Object.assign(resources, gatewayResponses({ Ref: REST_API }, env));
  Object.assign(
    resources,
    wafResources(
      {
        stackName,
        stageArn: {
          "Fn::Sub": `arn:\${AWS::Partition}:apigateway:\${AWS::Region}::/restapis/\${${REST_API}}/stages/${stageName}`,
        },
        dependsOn: [STAGE],
      },
      env,
    ),
  );
  decideAtPackageTime(template, "HasAlarmTopic", (env.ALARM_TOPIC_ARN ?? "").trim() !== "");
  for (const { role } of unneededFunctions(env)) delete resources[role];
  dropEmptyVariables(resources);
  return template;
}

class RestStage {
  constructor(serverless, options = {}, { log } = {}) {
    this.hooks = {
      // A function nothing in the stage calls is left out (the authorizer without an issuer,
      // the scope trigger without the pool). Every setting was checked before this
      // (config/settings.cjs).
      initialize: () => {
        for (const { name } of unneededFunctions()) delete serverless.service.functions[name];
      },
      "after:aws:package:finalize:mergeCustomProviderResources": () => {
        const provider = serverless.getProvider("aws");
        editTemplate(serverless.service.provider.compiledCloudFormationTemplate, {
          stageName: provider.getStage(),
          stackName: provider.naming.getStackName(),
        });
      },
      // osls says only that the service was packaged: say where, for `npm run package`.
      "after:aws:package:finalize:saveServiceState": () => {
        const dir = resolve(options.package ?? join(serverless.serviceDir ?? ".", ".serverless"));
        const shown = relative(".", dir).startsWith("..") ? dir : relative(".", dir);
        const say = log?.notice ?? console.log;
        say(
          `Template: ${join(shown, "cloudformation-template-update-stack.json")} (a zip per function beside it)`,
        );
      },
    };
  }
}

module.exports = RestStage;
module.exports.editTemplate = editTemplate;
module.exports.readStageSettings = readStageSettings;
module.exports.ACCESS_LOG_FORMAT = ACCESS_LOG_FORMAT;
