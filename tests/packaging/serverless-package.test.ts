// Packaging tests: what `serverless package` would deploy (template, function zips), checked offline.
import { COUNTER_ID } from "../../lib/storage/posts-table.js";
import { mkdtemp, readFile, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handlerNames } from "../../scripts/build.mjs";
import { LAMBDA_RUNTIME, RUNTIME_NODE_VERSION } from "../../scripts/runtime-node.mjs";
import {
  type Resource,
  type Template,
  packageInto,
  packageWithOutput,
  templateEnv,
} from "../helpers/package.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const DYNAMODB_ACTIONS = [
  "dynamodb:BatchGetItem",
  "dynamodb:DeleteItem",
  "dynamodb:GetItem",
  "dynamodb:PutItem",
  "dynamodb:Scan",
  "dynamodb:UpdateItem",
];

interface FunctionProperties {
  Runtime: string;
  Handler: string;
  Code: { S3Key: string };
  Environment?: { Variables?: Record<string, unknown> };
}

interface Statement {
  Effect: string;
  Action?: string | string[];
  NotAction?: unknown;
  Resource?: unknown;
}

let packageDir = "";
let configuredDir = "";
let resources: Record<string, Resource> = {};
/** The template packaged with an alarm topic and CORS origins set. */
let configured: Template;
let printed: string;
const ALARM_TOPIC = "arn:aws:sns:us-east-1:123456789012:blog-alarms";

beforeAll(async () => {
  packageDir = await mkdtemp(join(tmpdir(), "blog-post-package-"));
  configuredDir = await mkdtemp(join(tmpdir(), "blog-post-package-configured-"));
  // Defaults only: a developer's settings must not shape the default template.
  const env = templateEnv();
  const withOptions = templateEnv({
    ALARM_TOPIC_ARN: ALARM_TOPIC,
    CORS_ORIGINS: "https://blog.example",
    LOG_LEVEL: "error",
  });
  const [plain, optioned] = await Promise.all([
    packageWithOutput(packageDir, env),
    packageInto(configuredDir, withOptions),
  ]);
  resources = plain.template.Resources;
  printed = plain.output;
  configured = optioned;
});

afterAll(async () => {
  for (const dir of [packageDir, configuredDir]) {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
});

const ofType = (type: string) =>
  Object.entries(resources).filter(([, resource]) => resource.Type === type);

/** What the post events add (config/events.cjs): tests/packaging/events.test.ts checks them. */
const EVENT_FUNCTIONS = ["PublishEventsLambdaFunction", "DeliverWebhooksLambdaFunction"];
const EVENT_ZIPS = ["publishEvents.zip", "deliverWebhooks.zip"];

/** The API's functions. */
const functions = () =>
  ofType("AWS::Lambda::Function")
    .filter(([id]) => !EVENT_FUNCTIONS.includes(id))
    .map(([id, r]) => [id, r.Properties as unknown as FunctionProperties] as const);

/** Names and uncompressed sizes of a zip's entries, read from its central directory. */
async function zipEntries(file: string): Promise<{ name: string; size: number }[]> {
  const zip = await readFile(file);
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error(`${file} is not a zip`);
  const count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  const entries: { name: string; size: number }[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(offset) !== 0x02014b50) throw new Error(`${file}: bad central directory`);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    entries.push({
      name: zip.toString("utf8", offset + 46, offset + 46 + nameLength),
      size: zip.readUInt32LE(offset + 24),
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The bundle folder a handler setting such as `dist/get-post/index.handler` points at. */
const bundleOf = (handler: string) => /^dist\/([^/]+)\/index\.handler$/.exec(handler)?.[1];

describe("Lambda functions", () => {
  it("are exactly five, one per route's handler, on the runtime whose Node CI runs the suite on", () => {
    const all = functions();
    expect(all).toHaveLength(5);
    // The token authorizer's function is in a stage only with AUTH_ISSUER_URL, the pool's scope
    // trigger only with AUTH_USER_POOL=true (security.test.ts).
    const notRoutes = ["authorize-writes", "grant-scopes", "publish-events", "deliver-webhooks"];
    const routeHandlers = handlerNames.filter((name) => !notRoutes.includes(name));
    expect(all.map(([, fn]) => bundleOf(fn.Handler)).sort()).toEqual(routeHandlers.sort());
    expect(LAMBDA_RUNTIME).toBe(`nodejs${RUNTIME_NODE_VERSION.split(".")[0]}.x`);
    for (const [id, fn] of all) expect(fn.Runtime, id).toBe(LAMBDA_RUNTIME);
  });

  it("each zip holds exactly its own bundle, as built", async () => {
    const zips = (await readdir(packageDir)).filter(
      (file) => file.endsWith(".zip") && !EVENT_ZIPS.includes(file),
    );
    expect(zips).toHaveLength(5);
    for (const [id, fn] of functions()) {
      const zip = basename(fn.Code.S3Key);
      expect(zips, id).toContain(zip);
      const bundle = `dist/${bundleOf(fn.Handler)}/index.mjs`;
      const built = await stat(join(root, bundle));
      expect(await zipEntries(join(packageDir, zip)), id).toEqual([
        { name: bundle, size: built.size },
      ]);
    }
  });

  it("each logs in Lambda's JSON format at the level LOG_LEVEL sets (info by default)", () => {
    const configuredFunctions = Object.entries(configured.Resources)
      .filter(
        ([id, resource]) =>
          resource.Type === "AWS::Lambda::Function" && !EVENT_FUNCTIONS.includes(id),
      )
      .map(([, resource]) => resource);
    for (const [template, level] of [
      [functions().map(([, fn]) => fn as unknown as Record<string, unknown>), "INFO"],
      [configuredFunctions.map((fn) => fn.Properties), "ERROR"],
    ] as const) {
      expect(template).toHaveLength(5);
      for (const fn of template) {
        expect(fn.LoggingConfig).toEqual({
          LogFormat: "JSON",
          ApplicationLogLevel: level,
          SystemLogLevel: "INFO",
        });
      }
    }
  });

  it("each has TABLE_NAME (the table's name) and TZ (UTC unless TIME_ZONE is set)", () => {
    const tableName = resources.PostsTable?.Properties.TableName;
    expect(tableName).toEqual(expect.any(String));
    for (const [id, fn] of functions()) {
      expect(fn.Environment?.Variables, id).toMatchObject({ TABLE_NAME: tableName, TZ: "UTC" });
    }
  });
});

describe("PostsTable", () => {
  it("is retained on stack deletion and replacement", () => {
    expect(resources.PostsTable).toMatchObject({
      Type: "AWS::DynamoDB::Table",
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
    });
  });

  it("is on-demand, with point-in-time recovery and a numeric hash key id", () => {
    expect(resources.PostsTable?.Properties).toMatchObject({
      BillingMode: "PAY_PER_REQUEST",
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
      AttributeDefinitions: [{ AttributeName: "id", AttributeType: "N" }],
    });
  });
});

describe("IAM", () => {
  const statements = (): Statement[] =>
    [
      ...ofType("AWS::IAM::Role"),
      ...ofType("AWS::IAM::Policy"),
      ...ofType("AWS::IAM::ManagedPolicy"),
    ]
      .flatMap(([, resource]) => {
        const props = resource.Properties as {
          Policies?: { PolicyDocument: { Statement: Statement[] } }[];
          PolicyDocument?: { Statement: Statement[] };
        };
        return [
          ...(props.Policies ?? []).map((p) => p.PolicyDocument),
          props.PolicyDocument ?? { Statement: [] },
        ];
      })
      .flatMap((document) => document.Statement);
  const actionsOf = (statement: Statement) => [statement.Action ?? []].flat();
  /** The stream's reads by its event source mapping: tests/packaging/events.test.ts checks them. */
  const readsStream = (statement: Statement) =>
    JSON.stringify(statement.Resource) ===
    JSON.stringify({ "Fn::GetAtt": ["PostsTable", "StreamArn"] });
  const touchesDynamoDb = (statement: Statement) =>
    !readsStream(statement) &&
    actionsOf(statement).some(
      (action) => action === "*" || action.toLowerCase().startsWith("dynamodb:"),
    );

  const resourcesOf = (statement: Statement) => [statement.Resource ?? []].flat();
  const arnOf = (table: string) => JSON.stringify({ "Fn::GetAtt": [table, "Arn"] });

  it("grants only the item calls, Scan and BatchGetItem, only on this stack's tables", () => {
    const tableArns = ofType("AWS::DynamoDB::Table").map(([id]) => arnOf(id));
    const dynamo = statements().filter(touchesDynamoDb);
    expect(dynamo.length).toBeGreaterThan(0);
    for (const statement of dynamo) {
      expect(statement.Effect).toBe("Allow");
      expect(DYNAMODB_ACTIONS).toEqual(expect.arrayContaining(actionsOf(statement)));
      expect(resourcesOf(statement).length).toBeGreaterThan(0);
      // A string here would be `*` or a hand-written ARN; only the tables' own ARNs are allowed.
      for (const target of resourcesOf(statement)) {
        expect(tableArns).toContain(JSON.stringify(target));
      }
    }
  });

  it("grants on the posts table exactly the six actions the handlers use", () => {
    const onPosts = statements()
      .filter(touchesDynamoDb)
      .filter((statement) =>
        resourcesOf(statement).some((target) => JSON.stringify(target) === arnOf("PostsTable")),
      );
    expect([...new Set(onPosts.flatMap(actionsOf))].sort()).toEqual(DYNAMODB_ACTIONS);
  });

  it("has no statement with NotAction, and no wildcard action", () => {
    for (const statement of statements()) {
      expect(statement.NotAction).toBeUndefined();
      expect(actionsOf(statement)).not.toContain("*");
    }
  });
});

/** The path of an API Gateway resource, from its PathPart and its parents'. */
function resourcePath(id: string): string {
  const resource = resources[id];
  if (!resource) return "";
  const parent = resource.Properties.ParentId as { Ref?: string };
  const part = String(resource.Properties.PathPart);
  return parent.Ref ? `${resourcePath(parent.Ref)}/${part}` : `/${part}`;
}

/** Each method of the REST API as `VERB /path`, with its integration. */
const methods = () =>
  ofType("AWS::ApiGateway::Method").map(([id, method]) => {
    const { HttpMethod, ResourceId, Integration } = method.Properties as {
      HttpMethod: string;
      ResourceId: { Ref: string };
      Integration: {
        Type: string;
        Uri: { "Fn::Join": [string, unknown[]] };
        ResponseTransferMode?: string;
        TimeoutInMillis?: number;
      };
    };
    return { id, route: `${HttpMethod} ${resourcePath(ResourceId.Ref)}`, integration: Integration };
  });

/** The function an integration's URI names, and the URI's text with the function's place marked. */
function integrationTarget(uri: { "Fn::Join": [string, unknown[]] }) {
  const parts = uri["Fn::Join"][1];
  const fn = parts.find(
    (part) => typeof part === "object" && part !== null && "Fn::GetAtt" in part,
  ) as { "Fn::GetAtt": [string, string] } | undefined;
  const text = parts.map((part) => (typeof part === "string" ? part : "<ref>")).join("");
  return { functionId: fn?.["Fn::GetAtt"][0], text };
}

describe("the REST API", () => {
  it("is one regional AWS::ApiGateway::RestApi named for the stage, JSON bodies as bytes, no HTTP API", () => {
    const apis = ofType("AWS::ApiGateway::RestApi");
    expect(apis).toHaveLength(1);
    expect(apis[0]?.[1].Properties).toEqual({
      Name: "blog-post-api-test",
      EndpointConfiguration: { Types: ["REGIONAL"] },
      BinaryMediaTypes: ["application/json"],
    });
    expect(
      Object.values(resources).filter((r) => r.Type.startsWith("AWS::ApiGatewayV2::")),
    ).toEqual([]);
  });

  it.each([
    { route: "GET /api/post", bundle: "list-posts" },
    { route: "POST /api/post", bundle: "create-post" },
    { route: "GET /api/post/{post_pk}", bundle: "get-post" },
    { route: "PUT /api/post/{post_pk}", bundle: "update-post" },
    { route: "DELETE /api/post/{post_pk}", bundle: "delete-post" },
  ])("$route reaches $bundle through a Lambda proxy integration", ({ route, bundle }) => {
    const method = methods().find((m) => m.route === route);
    expect(method, route).toBeDefined();
    expect(method?.integration.Type).toBe("AWS_PROXY");
    const { functionId } = integrationTarget(method!.integration.Uri);
    const fn = resources[functionId ?? ""];
    expect(bundleOf((fn?.Properties as unknown as FunctionProperties).Handler)).toBe(bundle);
  });

  it("holds exactly the five methods", () => {
    expect(
      methods()
        .map((m) => m.route)
        .sort(),
    ).toEqual([
      "DELETE /api/post/{post_pk}",
      "GET /api/post",
      "GET /api/post/{post_pk}",
      "POST /api/post",
      "PUT /api/post/{post_pk}",
    ]);
  });

  it("streams the list through Lambda's InvokeWithResponseStream, and only the list", () => {
    for (const { route, integration } of methods()) {
      const { text } = integrationTarget(integration.Uri);
      if (route === "GET /api/post") {
        expect(integration.ResponseTransferMode).toBe("STREAM");
        expect(text).toMatch(
          /:lambda:path\/2021-11-15\/functions\/<ref>\/response-streaming-invocations$/,
        );
      } else {
        expect(integration.ResponseTransferMode, route).toBeUndefined();
        expect(text, route).toMatch(/:lambda:path\/2015-03-31\/functions\/<ref>\/invocations$/);
      }
    }
  });

  it("waits for the streamed list as long as its function may run, the buffered routes 29 s", () => {
    // A streamed integration's timeout bounds the whole stream (up to 15 minutes); unset, it is
    // REST's 29 s, which would cut a large list off mid-stream.
    for (const { id, route, integration } of methods()) {
      const { functionId } = integrationTarget(integration.Uri);
      const timeout = Number(
        (resources[functionId ?? ""]?.Properties as { Timeout?: number }).Timeout,
      );
      if (route === "GET /api/post") {
        expect(timeout, id).toBe(180);
        expect(integration.TimeoutInMillis, route).toBeGreaterThanOrEqual(timeout * 1000);
        expect(integration.TimeoutInMillis, route).toBeLessThanOrEqual(15 * 60 * 1000);
      } else {
        expect(integration.TimeoutInMillis, route).toBeUndefined();
      }
    }
  });

  it("lets API Gateway invoke each function, the streamed list included", () => {
    // InvokeWithResponseStream "requires permission for the lambda:InvokeFunction action"
    // (Lambda API reference, InvokeWithResponseStream): the same grant as a buffered invoke.
    const granted = ofType("AWS::Lambda::Permission").map(([, p]) => p.Properties);
    for (const [id] of functions()) {
      const grant = granted.find(
        (p) => (p.FunctionName as { "Fn::GetAtt": string[] })["Fn::GetAtt"][0] === id,
      );
      expect(grant, id).toMatchObject({
        Action: "lambda:InvokeFunction",
        Principal: "apigateway.amazonaws.com",
      });
      expect(JSON.stringify(grant?.SourceArn)).toContain('{"Ref":"ApiGatewayRestApi"}');
    }
  });

  it("has no property holding an empty string", () => {
    const empty: string[] = [];
    const walk = (value: unknown, path: string) => {
      if (value === "") empty.push(path);
      else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`));
      else if (typeof value === "object" && value !== null) {
        for (const [key, item] of Object.entries(value)) walk(item, `${path}.${key}`);
      }
    };
    walk(resources, "Resources");
    walk(configured.Resources, "configured.Resources");
    // Fn::Join's separator is an empty string by design, not a value AWS must have.
    expect(empty.filter((path) => !/Fn::Join\[0\]$/.test(path))).toEqual([]);
  });
});

describe("least privilege per function", () => {
  const grants = (functionId: string) => {
    const role = (resources[functionId]?.Properties as { Role?: { "Fn::GetAtt"?: string[] } })
      .Role?.["Fn::GetAtt"]?.[0];
    expect(role, `${functionId} has a role of its own`).toBeDefined();
    const policies = (
      resources[role ?? ""]?.Properties as {
        Policies: { PolicyDocument: { Statement: Statement[] } }[];
      }
    ).Policies;
    const granted: Record<string, string[]> = {};
    for (const statement of policies.flatMap((p) => p.PolicyDocument.Statement)) {
      for (const target of [statement.Resource ?? []].flat()) {
        const name = (target as { "Fn::GetAtt"?: string[] })["Fn::GetAtt"]?.[0];
        if (!name) continue;
        // A grant with a condition is kept apart, under the condition it carries.
        const condition = (statement as { Condition?: unknown }).Condition;
        const table = condition ? `${name} if ${JSON.stringify(condition)}` : name;
        const actions = [statement.Action ?? []].flat() as string[];
        granted[table] = [...(granted[table] ?? []), ...actions].sort();
      }
    }
    return granted;
  };

  /** The read a writer makes at init: the counter's item (partition key 0) alone. */
  const counterOnly = `PostsTable if ${JSON.stringify({
    "ForAllValues:StringEquals": { "dynamodb:LeadingKeys": [String(COUNTER_ID)] },
  })}`;

  it.each([
    // BatchGetItem reads the change marker; UpdateItem on a writer also advances it. The list
    // and get functions' init calls (a list, a GetItem) need nothing they did not have.
    ["ListPostsLambdaFunction", { PostsTable: ["dynamodb:BatchGetItem", "dynamodb:Scan"] }],
    ["GetPostLambdaFunction", { PostsTable: ["dynamodb:GetItem"] }],
    [
      "CreatePostLambdaFunction",
      {
        PostsTable: ["dynamodb:PutItem", "dynamodb:UpdateItem"],
        [counterOnly]: ["dynamodb:GetItem"],
        IdempotencyTable: ["dynamodb:DeleteItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
      },
    ],
    [
      "UpdatePostLambdaFunction",
      { PostsTable: ["dynamodb:UpdateItem"], [counterOnly]: ["dynamodb:GetItem"] },
    ],
    [
      "DeletePostLambdaFunction",
      {
        PostsTable: ["dynamodb:DeleteItem", "dynamodb:UpdateItem"],
        [counterOnly]: ["dynamodb:GetItem"],
      },
    ],
  ])("%s may make only the DynamoDB calls its code makes", (functionId, expected) => {
    expect(grants(functionId)).toEqual(expected);
  });

  it("list cannot write, get cannot scan, delete cannot put", () => {
    expect(grants("ListPostsLambdaFunction").PostsTable).not.toContain("dynamodb:PutItem");
    expect(grants("ListPostsLambdaFunction").PostsTable).not.toContain("dynamodb:UpdateItem");
    expect(grants("GetPostLambdaFunction").PostsTable).not.toContain("dynamodb:Scan");
    expect(grants("DeletePostLambdaFunction").PostsTable).not.toContain("dynamodb:PutItem");
  });
});

describe("what packaging says and makes beside the stack", () => {
  it("says where the template went", () => {
    const template = join(packageDir, "cloudformation-template-update-stack.json");
    expect(printed).toContain(`Template: ${template} (a zip per function beside it)`);
  });

  it("blocks public access to the deployment bucket", async () => {
    const created = JSON.parse(
      await readFile(join(packageDir, "cloudformation-template-create-stack.json"), "utf8"),
    ) as Template;
    expect(created.Resources.ServerlessDeploymentBucket?.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
  });
});

describe("optional alarms and CORS", () => {
  const alarms = (template: { Resources: Record<string, Resource> }) =>
    Object.entries(template.Resources).filter(([, r]) => r.Type === "AWS::CloudWatch::Alarm");

  it("without ALARM_TOPIC_ARN, there is no alarm but the events' dead letters', and no condition for one", () => {
    expect(alarms({ Resources: resources }).map(([id]) => id)).toEqual(["EventsDeadLetterAlarm"]);
    expect(resources.EventsDeadLetterAlarm?.Properties.AlarmActions).toBeUndefined();
    expect(JSON.stringify(resources)).not.toContain("HasAlarmTopic");
  });

  it("with ALARM_TOPIC_ARN, the alarms notify that topic, with no always-true condition", () => {
    expect(configured.Conditions?.HasAlarmTopic).toBeUndefined();
    for (const [id, alarm] of alarms(configured)) expect(alarm.Condition, id).toBeUndefined();
    const names = alarms(configured)
      .map(([id]) => id)
      .sort();
    expect(names).toEqual([
      "ApiLatencyAlarm",
      "ApiServerErrorsAlarm",
      "DynamoThrottlesAlarm",
      "EventsDeadLetterAlarm",
      "IdempotencyTableCapacityAlarm",
      "LambdaErrorsAlarm",
      "PostsTableCapacityAlarm",
    ]);
    for (const [, alarm] of alarms(configured)) {
      expect(alarm.Properties.AlarmActions).toEqual([ALARM_TOPIC]);
    }
  });

  it("alarms on p99 latency over 1,000 ms and on 80% of a table's ceiling by default", () => {
    const alarmed = configured.Resources;
    expect(alarmed.ApiLatencyAlarm?.Properties.Threshold).toBe(1000);
    expect(alarmed.PostsTableCapacityAlarm?.Properties.Threshold).toBe(80);
    const [percent] = alarmed.PostsTableCapacityAlarm?.Properties.Metrics as {
      Expression: string;
    }[];
    expect(percent?.Expression).toBe("100 * MAX([reads / 60 / 1000, writes / 60 / 200])");
  });

  it("counts the list function's errors: the others' failures are the API's 5xx", () => {
    expect(configured.Resources.LambdaErrorsAlarm?.Properties).toMatchObject({
      Namespace: "AWS/Lambda",
      MetricName: "Errors",
      Dimensions: [{ Name: "FunctionName", Value: { Ref: "ListPostsLambdaFunction" } }],
    });
  });

  it("has no CORS unless CORS_ORIGINS is set, and then only those origins", () => {
    const preflights = (all: Record<string, Resource>) =>
      Object.values(all).filter(
        (r) => r.Type === "AWS::ApiGateway::Method" && r.Properties.HttpMethod === "OPTIONS",
      );
    expect(preflights(resources)).toEqual([]);
    const answered = preflights(configured.Resources);
    // One preflight per path, answered by the gateway itself.
    expect(answered).toHaveLength(2);
    for (const preflight of answered) {
      const integration = preflight.Properties.Integration as {
        Type: string;
        IntegrationResponses: { ResponseParameters: Record<string, string> }[];
      };
      expect(integration.Type).toBe("MOCK");
      const headers = integration.IntegrationResponses[0]?.ResponseParameters ?? {};
      expect(headers["method.response.header.Access-Control-Allow-Origin"]).toBe(
        "'https://blog.example'",
      );
      expect(headers["method.response.header.Access-Control-Allow-Headers"]).toBe(
        "'Authorization,Content-Type,Idempotency-Key,If-None-Match'",
      );
    }
    // The functions add CORS to their own answers, from the same list.
    for (const fn of Object.values(configured.Resources).filter(
      (r) => r.Type === "AWS::Lambda::Function",
    )) {
      expect((fn.Properties as unknown as FunctionProperties).Environment?.Variables).toMatchObject(
        { CORS_ORIGINS: "https://blog.example" },
      );
    }
  });

  it("sets a log retention on every function's log group", () => {
    const groups = Object.values(resources).filter((r) => r.Type === "AWS::Logs::LogGroup");
    // The five API functions' and the events' publishing function's.
    expect(groups).toHaveLength(6);
    for (const group of groups) expect(group.Properties.RetentionInDays).toBe(30);
  });
});
