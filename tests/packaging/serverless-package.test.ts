// Packaging tests: what `serverless package` would deploy with default settings (template,
// function zips), checked offline. The settings' effects are in the other files of this folder.
import { COUNTER_ID } from "../../lib/storage/posts-table.js";
import { readFile, readdir, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { handlerNames } from "../../scripts/build.mjs";
import { LAMBDA_RUNTIME, RUNTIME_NODE_VERSION } from "../../scripts/runtime-node.mjs";
import {
  API_FUNCTION_IDS,
  type Template,
  methodsByRoute,
  ofType,
  packagedBeforeAll,
} from "../helpers/package.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const DYNAMODB_ACTIONS = "BatchGetItem DeleteItem GetItem PutItem Scan UpdateItem"
  .split(" ")
  .map((action) => `dynamodb:${action}`);
const ROUTES = {
  "GET /api/post": "list-posts",
  "POST /api/post": "create-post",
  "GET /api/post/{post_pk}": "get-post",
  "PUT /api/post/{post_pk}": "update-post",
  "DELETE /api/post/{post_pk}": "delete-post",
};
type Statement = Record<string, unknown> & { Effect: string; Action?: string | string[] };

const packages = packagedBeforeAll({ plain: {} });
const template = () => packages.plain.template;
const resources = () => template().Resources;

const allFunctions = () =>
  ofType(template(), "AWS::Lambda::Function").map(([id, r]) => [id, r.Properties] as const);
const functions = () => allFunctions().filter(([id]) => API_FUNCTION_IDS.includes(id));
const functionProperties = (id: string) => resources()[id]!.Properties;

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
    const nameEnd = offset + 46 + zip.readUInt16LE(offset + 28);
    entries.push({
      name: zip.toString("utf8", offset + 46, nameEnd),
      size: zip.readUInt32LE(offset + 24),
    });
    // Past the name, the extra field and the comment.
    offset = nameEnd + zip.readUInt16LE(offset + 30) + zip.readUInt16LE(offset + 32);
  }
  return entries;
}

/** The bundle folder a handler setting such as `dist/get-post/index.handler` points at. */
const bundleOf = (handler: string) => /^dist\/([^/]+)\/index\.handler$/.exec(handler)?.[1];

describe("Lambda functions", () => {
  it("are exactly five, one per route's handler, on the runtime whose Node CI runs the suite on", () => {
    // The authorizer and scope trigger need settings (security.test.ts); the rest answer no route.
    const notRoutes = "authorize-writes grant-scopes publish-events deliver-webhooks stage-guard";
    const routeHandlers = handlerNames.filter((name) => !notRoutes.split(" ").includes(name));
    const bundles = functions().map(([, fn]) => bundleOf(fn.Handler));
    expect(bundles.sort()).toEqual(routeHandlers.sort());
    expect(LAMBDA_RUNTIME).toBe(`nodejs${RUNTIME_NODE_VERSION.split(".")[0]}.x`);
    for (const [id, fn] of allFunctions()) expect(fn.Runtime, id).toBe(LAMBDA_RUNTIME);
  });

  it("each has a zip of its own that holds exactly its bundle, as built", async () => {
    const zips = (await readdir(packages.plain.dir)).filter((file) => file.endsWith(".zip"));
    expect(zips).toHaveLength(allFunctions().length);
    for (const [id, fn] of allFunctions()) {
      const zip = basename(fn.Code.S3Key);
      expect(zips, id).toContain(zip);
      const bundle = `dist/${bundleOf(fn.Handler)}/index.mjs`;
      const built = await stat(join(root, bundle));
      expect(await zipEntries(join(packages.plain.dir, zip)), id).toEqual([
        { name: bundle, size: built.size },
      ]);
    }
  });

  it("each has TABLE_NAME (the table's name) and TZ (UTC)", () => {
    const tableName = resources().PostsTable?.Properties.TableName;
    expect(tableName).toEqual(expect.any(String));
    for (const [id, fn] of functions()) {
      expect(fn.Environment?.Variables, id).toMatchObject({ TABLE_NAME: tableName, TZ: "UTC" });
    }
  });
});

it("PostsTable is retained on deletion and replacement, on-demand, with point-in-time recovery", () => {
  expect(resources().PostsTable).toMatchObject({
    Type: "AWS::DynamoDB::Table",
    DeletionPolicy: "Retain",
    UpdateReplacePolicy: "Retain",
    Properties: {
      BillingMode: "PAY_PER_REQUEST",
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
      AttributeDefinitions: [{ AttributeName: "id", AttributeType: "N" }],
    },
  });
});

describe("IAM", () => {
  const statements = (): Statement[] =>
    ["AWS::IAM::Role", "AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"]
      .flatMap((type) => ofType(template(), type))
      .flatMap(([, { Properties: props }]) => [
        ...(props.Policies ?? []).map((p: { PolicyDocument: unknown }) => p.PolicyDocument),
        props.PolicyDocument ?? { Statement: [] },
      ])
      .flatMap((document) => document.Statement);
  const actionsOf = (statement: Statement) => [statement.Action ?? []].flat();
  const resourcesOf = (statement: Statement) => [statement.Resource ?? []].flat();
  /** A stream's reads by an event source mapping: events.test.ts checks them. */
  const readsStream = (statement: Statement) =>
    /^\{"Fn::GetAtt":\["\w+","StreamArn"\]\}$/.test(JSON.stringify(statement.Resource));

  it("grants only the item calls, Scan and BatchGetItem, only on this stack's tables; no NotAction or *", () => {
    for (const statement of statements()) {
      expect(statement.NotAction).toBeUndefined();
      expect(actionsOf(statement)).not.toContain("*");
    }
    const tableArns = ofType(template(), "AWS::DynamoDB::Table").map(([id]) =>
      JSON.stringify({ "Fn::GetAtt": [id, "Arn"] }),
    );
    const dynamo = statements().filter(
      (statement) =>
        !readsStream(statement) &&
        actionsOf(statement).some((action) => /^dynamodb:/i.test(action)),
    );
    expect(dynamo.length).toBeGreaterThan(0);
    for (const statement of dynamo) {
      expect(statement.Effect).toBe("Allow");
      expect(DYNAMODB_ACTIONS).toEqual(expect.arrayContaining(actionsOf(statement)));
      expect(resourcesOf(statement).length).toBeGreaterThan(0);
      // Only the tables' own ARNs: no `*`, no hand-written ARN.
      for (const target of resourcesOf(statement)) {
        expect(tableArns).toContain(JSON.stringify(target));
      }
    }
  });

  /** Each table a function's own role may act on, with the actions, a conditional grant apart. */
  const grants = (functionId: string) => {
    const role = functionProperties(functionId).Role?.["Fn::GetAtt"]?.[0];
    expect(role, `${functionId} has a role of its own`).toBeDefined();
    const policies = resources()[role ?? ""]?.Properties.Policies;
    const granted: Record<string, string[]> = {};
    for (const statement of policies.flatMap(
      (p: { PolicyDocument: { Statement: Statement[] } }) => p.PolicyDocument.Statement,
    )) {
      for (const target of resourcesOf(statement)) {
        const name = (target as { "Fn::GetAtt"?: string[] })["Fn::GetAtt"]?.[0];
        if (!name) continue;
        const { Condition } = statement;
        const table = Condition ? `${name} if ${JSON.stringify(Condition)}` : name;
        granted[table] = [...(granted[table] ?? []), ...actionsOf(statement)].sort();
      }
    }
    return granted;
  };

  /** The read a writer makes at init: the counter's item (partition key 0) alone. */
  const counterOnly = `PostsTable if ${JSON.stringify({
    "ForAllValues:StringEquals": { "dynamodb:LeadingKeys": [String(COUNTER_ID)] },
  })}`;
  const counter = { [counterOnly]: ["GetItem"] };
  const { LEDGER_GRANT } = createRequire(import.meta.url)("../../config/spend.cjs") as {
    LEDGER_GRANT: { Condition: unknown };
  };
  /** The spending limit's meter, on by default: the ledger's items ("spend …") alone. */
  const ledgerOnly = `IdempotencyTable if ${JSON.stringify(LEDGER_GRANT.Condition)}`;
  const ledger = { [ledgerOnly]: ["GetItem", "UpdateItem"] };

  const claims = { IdempotencyTable: ["DeleteItem", "PutItem", "UpdateItem"] };
  // BatchGetItem reads the change marker; UpdateItem on a writer also advances it.
  it.each([
    ["ListPosts", { PostsTable: ["BatchGetItem", "Scan"] }],
    ["GetPost", { PostsTable: ["GetItem"] }],
    ["CreatePost", { PostsTable: ["PutItem", "UpdateItem"], ...counter, ...claims }],
    ["UpdatePost", { PostsTable: ["UpdateItem"], ...counter }],
    ["DeletePost", { PostsTable: ["DeleteItem", "UpdateItem"], ...counter }],
  ])("%s may make only the DynamoDB calls its code makes", (name, expected) => {
    const calls = (actions: string[]) => actions.map((action) => `dynamodb:${action}`);
    const all = { ...ledger, ...expected };
    const granted = Object.fromEntries(Object.entries(all).map(([table, a]) => [table, calls(a)]));
    expect(grants(`${name}LambdaFunction`)).toEqual(granted);
  });
});

describe("the REST API", () => {
  const routes = () =>
    Object.entries(methodsByRoute(template())).map(([route, method]) => {
      const integration = method.Integration;
      const parts: (string | { "Fn::GetAtt"?: string[] })[] = integration.Uri["Fn::Join"][1];
      const target = parts.find((part) => typeof part === "object" && part["Fn::GetAtt"]);
      // The URI's text, the function's place marked.
      const uri = parts.map((part) => (typeof part === "string" ? part : "<ref>")).join("");
      const functionId = typeof target === "object" ? target["Fn::GetAtt"]![0]! : "";
      return { route, integration, functionId, uri };
    });

  it("is one regional AWS::ApiGateway::RestApi named for the stage, JSON bodies as bytes, no HTTP API", () => {
    const apis = ofType(template(), "AWS::ApiGateway::RestApi");
    expect(apis.map(([, api]) => api.Properties)).toEqual([
      {
        Name: "blog-post-api-test",
        EndpointConfiguration: { Types: ["REGIONAL"] },
        BinaryMediaTypes: ["application/json"],
      },
    ]);
    const types = Object.values(resources()).map((r) => r.Type);
    expect(types.filter((type) => type.startsWith("AWS::ApiGatewayV2::"))).toEqual([]);
  });

  it("holds exactly the five routes, each reaching its bundle through a Lambda proxy integration", () => {
    const reached = routes().map(({ route, integration, functionId }) => {
      expect(integration.Type, route).toBe("AWS_PROXY");
      return [route, bundleOf(functionProperties(functionId).Handler)];
    });
    expect(Object.fromEntries(reached)).toEqual(ROUTES);
  });

  it("streams the list, and only the list, as long as its function may run; the others 29 s", () => {
    // A streamed integration's timeout bounds the whole stream; unset, 29 s would cut a list off.
    for (const { route, integration, functionId, uri } of routes()) {
      const { ResponseTransferMode: mode, TimeoutInMillis: timeout } = integration;
      if (route === "GET /api/post") {
        expect(mode).toBe("STREAM");
        expect(uri).toMatch(
          /:lambda:path\/2021-11-15\/functions\/<ref>\/response-streaming-invocations$/,
        );
        expect(functionProperties(functionId).Timeout).toBe(180);
        expect(timeout).toBeGreaterThanOrEqual(180 * 1000);
        expect(timeout).toBeLessThanOrEqual(15 * 60 * 1000);
      } else {
        expect([mode, timeout], route).toEqual([undefined, undefined]);
        expect(uri, route).toMatch(/:lambda:path\/2015-03-31\/functions\/<ref>\/invocations$/);
      }
    }
  });

  it("lets API Gateway invoke each function, the streamed list included", () => {
    // InvokeWithResponseStream needs the same lambda:InvokeFunction grant as a buffered invoke.
    const granted = ofType(template(), "AWS::Lambda::Permission").map(([, p]) => p.Properties);
    for (const [id] of functions()) {
      const grant = granted.find((p) => p.FunctionName["Fn::GetAtt"][0] === id);
      expect(grant, id).toMatchObject({
        Action: "lambda:InvokeFunction",
        Principal: "apigateway.amazonaws.com",
      });
      expect(JSON.stringify(grant?.SourceArn)).toContain('{"Ref":"ApiGatewayRestApi"}');
    }
  });
});

describe("what packaging says and makes beside the stack", () => {
  it("says where the template went", () => {
    const file = join(packages.plain.dir, "cloudformation-template-update-stack.json");
    expect(packages.plain.output).toContain(`Template: ${file} (a zip per function beside it)`);
  });

  it("blocks public access to the deployment bucket", async () => {
    const created = JSON.parse(
      await readFile(join(packages.plain.dir, "cloudformation-template-create-stack.json"), "utf8"),
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

  it("without ALARM_TOPIC_ARN, has no alarm but the events' dead letters', and no condition for one", () => {
    // With a topic, every alarm notifies it: tests/packaging/dashboard.test.ts.
    const alarms = ofType(template(), "AWS::CloudWatch::Alarm");
    expect(alarms.map(([id]) => id)).toEqual(["EventsDeadLetterAlarm"]);
    expect(resources().EventsDeadLetterAlarm?.Properties.AlarmActions).toBeUndefined();
    expect(JSON.stringify(template())).not.toContain("HasAlarmTopic");
  });
});
