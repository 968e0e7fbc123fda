// Unit tests: `npm run cost`'s pricing (scripts/lib/cost.mjs) on small hand-written templates, the
// price file it reads, and the figures it copies from the code (metrics, a log line's size).
import { readFileSync, readdirSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { logRequest } from "../../../lib/http/log-line.js";
import { createLogger, invocationFields } from "../../../lib/http/logger.js";
import { requestMetrics } from "../../../lib/http/metrics.js";
import { STORAGE_COUNT_NAMES } from "../../../lib/storage/counts.js";
import {
  METRIC_SERIES,
  REQUEST_LINE_BYTES,
  WORKLOAD,
  dashboardMetrics,
  priceTemplate,
  sum,
} from "../../../scripts/lib/cost.mjs";
import { linesWrittenBy } from "../../helpers/handlers.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const prices = JSON.parse(readFileSync(`${root}config/prices.json`, "utf8"));

type Props = Record<string, unknown>;
type Resources = Record<string, { Type: string; Properties?: Props }>;
const price = (resources: Resources) => priceTemplate({ Resources: resources }, prices);
/** Each idle line's cost, by resource. */
const idle = (resources: Resources) =>
  Object.fromEntries(price(resources).idle.lines.map((line) => [line.resource, line.usd]));

const metric = (name: string, fn = "ListPostsLambdaFunction") =>
  ["BlogPostApi", name, "function_name", `\${${fn}}`, { stat: "Sum" }] as const;
const dashboard = (metrics: unknown[]) => {
  const body = JSON.stringify({ widgets: [{ properties: { metrics } }] });
  return { Type: "AWS::CloudWatch::Dashboard", Properties: { DashboardBody: { "Fn::Sub": body } } };
};
const alarm = (Properties: Props) => ({ Type: "AWS::CloudWatch::Alarm", Properties });
const metricStat = (id: string) => ({
  Id: id,
  MetricStat: { Metric: { Namespace: "AWS/Lambda", MetricName: id }, Period: 60, Stat: "Sum" },
});
const closeTo = (usd: number) => expect.closeTo(usd);
const queue = (fifo: boolean) => ({ Type: "AWS::SQS::Queue", Properties: { FifoQueue: fifo } });
const pollsOf = (queueId: string) => ({
  Type: "AWS::Lambda::EventSourceMapping",
  Properties: { EventSourceArn: { "Fn::GetAtt": [queueId, "Arn"] } },
});

describe("config/prices.json", () => {
  it("names its region, the date it was read, and each price's unit and AWS page", () => {
    expect(prices.region).toBe("us-east-1");
    expect(prices.read).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const [name, entry] of Object.entries<Record<string, unknown>>(prices.prices)) {
      expect(entry, name).toMatchObject({ usd: expect.any(Number), per: expect.any(Number) });
      expect(entry.source, name).toMatch(/^https:\/\/aws\.amazon\.com\//);
      expect(entry.unit, name).toEqual(expect.any(String));
    }
    for (const [name, tier] of Object.entries<Record<string, unknown>>(prices.freeTiers)) {
      expect(tier.amount, name).toBeGreaterThan(0);
      expect(tier.source, name).toMatch(/^https:\/\/aws\.amazon\.com\//);
    }
  });

  it("holds the first-tier list prices it is read for", () => {
    const rate = (name: string) => prices.prices[name].usd / prices.prices[name].per;
    const perMillion = ["apiGatewayRestRequests", "eventBridgeCustomEvents", "pipesRequests"];
    expect(perMillion.map((name) => rate(name) * 1e6)).toEqual([3.5, 1, 0.4].map(closeTo));
    const perUnit = ["dataTransferOut", "cloudWatchMetrics", "cloudWatchAlarmMetrics"];
    const perUnitUsd = [...perUnit, "cloudWatchLogsIngestion"].map(rate);
    expect(perUnitUsd).toEqual([0.09, 0.3, 0.1, 0.5].map(closeTo));
    expect(rate("cloudWatchDashboards")).toBe(3);
    expect([rate("wafWebAcls"), rate("wafRules"), rate("wafRequests") * 1e6]).toEqual([5, 1, 0.6]);
    expect([rate("cognitoM2mClients"), rate("cognitoM2mTokens") * 1000]).toEqual([6, 2.25]);
  });
});

describe("idle cost", () => {
  it("is $0 for what is billed only per use", () => {
    const cost = price({
      Fn: { Type: "AWS::Lambda::Function", Properties: { MemorySize: 1024 } },
      Role: { Type: "AWS::IAM::Role" },
      Posts: { Type: "AWS::DynamoDB::Table", Properties: { BillingMode: "PAY_PER_REQUEST" } },
      Bus: { Type: "AWS::Events::EventBus" },
      Dead: queue(false),
      Api: { Type: "AWS::ApiGateway::RestApi" },
      Pool: { Type: "AWS::Cognito::UserPool" },
      SignIn: { Type: "AWS::Cognito::UserPoolClient", Properties: { AllowedOAuthFlows: ["code"] } },
    });
    expect(cost.idle.totalUsd).toBe(0);
    expect(cost.idle.lines).toHaveLength(8);
    expect(cost.unknown).toEqual([]);
  });

  it("prices a web ACL at $5 and each of its rules at $1, a client-credentials client at $6", () => {
    const acl = (rules: number) => ({
      Type: "AWS::WAFv2::WebACL",
      Properties: { Rules: Array.from({ length: rules }, (_, i) => ({ Name: `r${i}` })) },
    });
    const client = (flows: string[]) => ({
      Type: "AWS::Cognito::UserPoolClient",
      Properties: { AllowedOAuthFlows: flows },
    });
    const resources = { Machine: client(["client_credentials"]), People: client(["code"]) };
    const expected = { One: 6, Three: 8, Machine: 6, People: 0 };
    expect(idle({ One: acl(1), Three: acl(3), ...resources })).toEqual(expected);
  });

  it("counts a dashboard's distinct metrics, free up to 50 and for 3 dashboards, else $3; reads Fn::Join, repeats and shorthands, leaves out expressions", () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => metric(`M${i}`));
    const three = { A: dashboard(rows(50)), B: dashboard(rows(51)), C: dashboard(rows(1)) };
    expect(idle(three)).toEqual({ A: 0, B: 3, C: 0 });
    const four = { A: dashboard([]), B: dashboard([]), C: dashboard([]), D: dashboard([]) };
    expect(idle(four)).toEqual({ A: 0, B: 0, C: 0, D: 3 });
    const metrics = [
      [{ expression: "a + b", id: "sum" }],
      ...[metric("Latency"), metric("Latency", "GetPostLambdaFunction"), metric("Latency")],
      ["...", "${DeletePostLambdaFunction}", { stat: "p99" }],
      [".", "Errors", ".", "."],
    ];
    const log = { type: "log", properties: { query: "fields @message" } };
    const body = JSON.stringify({ widgets: [{ properties: { metrics } }, log] });
    const [head, tail] = body.split("${GetPostLambdaFunction}");
    const joined = { "Fn::Join": ["", [head, { Ref: "GetPostLambdaFunction" }, tail]] };
    expect(dashboardMetrics(joined)).toEqual({ count: 4 });
  });

  it("counts each metric an alarm reads, the stage's first 10 free: 11 cost $0.10", () => {
    const Metrics = [{ Id: "total", Expression: "a + b" }, metricStat("a"), metricStat("b")];
    const nine = Array.from({ length: 9 }, (_, i) => [`A${i}`, alarm({ MetricName: "Errors" })]);
    const cost = price({ Errors: alarm({ Metrics }), ...Object.fromEntries(nine) });
    expect(cost.idle.lines.map((line) => line.usd)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0.1]);
    expect(cost.idle.totalUsd).toBe(0.1);
  });

  it("estimates a Pipe's polls of a stream past the free 2.5 million reads, Lambda's of a queue past SQS's free million", () => {
    const Source = { "Fn::GetAtt": ["PostsTable", "StreamArn"] };
    const pipe = { Type: "AWS::Pipes::Pipe", Properties: { Source } };
    const cost = price({ First: pipe, Second: pipe });
    // 4 polls a second for 30 days: 10,368,000; the first Pipe's take the free 2.5 million.
    expect(cost.idle.lines.map((line) => line.usd)).toEqual([1.5736, 2.0736]);
    expect(cost.idle.lines[0]?.note).toMatch(/^estimate/);
    // Lambda's idle polls of a queue: 648,000 each; the second queue's pass SQS's free million.
    const polls = idle({ Q1: queue(true), Q2: queue(true), P1: pollsOf("Q1"), P2: pollsOf("Q2") });
    expect(polls).toEqual({ Q1: 0, Q2: 0, P1: 0, P2: 0.148 });
  });

  it("lists what it cannot price as unknown, not $0: a SEARCH it cannot count, a Metrics Insights alarm, a type the price file does not know, a table on provisioned capacity", () => {
    const search = [{ expression: "SEARCH('{AWS/Lambda,FunctionName} Errors', 'Sum')" }];
    const query = { Id: "q", Expression: 'SELECT AVG(Duration) FROM "AWS/Lambda"', Period: 60 };
    const cost = price({
      Board: dashboard([search]),
      Insights: alarm({ Metrics: [query] }),
      Cluster: { Type: "AWS::ElastiCache::CacheCluster" },
      Provisioned: { Type: "AWS::DynamoDB::Table", Properties: { BillingMode: "PROVISIONED" } },
    });
    expect(cost.idle).toEqual({ totalUsd: 0, lines: [] });
    expect(cost.unknown.map(({ resource, type }) => [resource, type])).toEqual([
      ["Board", "AWS::CloudWatch::Dashboard"],
      ["Insights", "AWS::CloudWatch::Alarm"],
      ["Cluster", "AWS::ElastiCache::CacheCluster"],
      ["Provisioned", "AWS::DynamoDB::Table"],
    ]);
  });
});

describe("a million requests", () => {
  const lambda = { Type: "AWS::Lambda::Function", Properties: { MemorySize: 1024 } };
  const stage: Resources = { ListPostsLambdaFunction: lambda, GetPostLambdaFunction: lambda };
  const byResource = (lines: ReturnType<typeof price>["perMillion"]["lines"]) =>
    Object.fromEntries(lines.map((line) => [line.resource, line]));

  it("prices the gateway, Lambda, DynamoDB, data out (plain, gzip), metrics and logs; totals them", () => {
    const workload = { ...WORKLOAD, listBytes: { plain: 100_000, gzip: 25_000 } };
    const { perMillion } = priceTemplate({ Resources: stage }, prices, workload);
    const priced = byResource(perMillion.lines);
    expect(priced["API Gateway REST requests"]).toMatchObject({ units: 1e6, usd: 3.5 });
    expect(priced["Lambda invocations"]).toMatchObject({ units: 950_000, usd: 0.19 });
    // 800,000 lists of 3 ms and 150,000 gets of 3 ms, at 1 GB.
    expect(priced["Lambda GB-seconds"]?.units).toBeCloseTo(2850);
    // 8 units a list, 1 a get, 1 a write (its post read by the next list).
    expect(priced["DynamoDB read units"]).toMatchObject({ units: 6_600_000, usd: 0.825 });
    expect(priced["DynamoDB write units"]?.units).toBeCloseTo(166_666.6667);
    expect(priced["CloudWatch metrics"]).toMatchObject({ units: 3, usd: 0.9 });
    expect(priced["CloudWatch Logs, GB"]?.units).toBeCloseTo((1e6 * 1200) / 2 ** 30);
    expect(priced["EventBridge events"]).toBeUndefined();
    const gb = (list: number) => (800_000 * list + 200_000 * 1000) / 2 ** 30;
    expect(priced["Data transfer out, GB"]?.units).toBeCloseTo(gb(100_000));
    expect(priced["Data transfer out, GB"]?.gzipUsd).toBeCloseTo(gb(25_000) * 0.09, 3);
    const plain = perMillion.lines.reduce((all, line) => all + line.usd, 0);
    expect(perMillion.totalUsd).toBeCloseTo(plain, 3);
    expect(sum(perMillion.lines, "gzipUsd")).toBeLessThan(perMillion.totalUsd);
  });

  it("adds the events, webhooks, WAF and tracing only where the template has them", () => {
    const { perMillion } = price({
      ...stage,
      Bus: { Type: "AWS::Events::EventBus" },
      Queue: queue(true),
      Polls: pollsOf("Queue"),
      Acl: { Type: "AWS::WAFv2::WebACL", Properties: { Rules: [] } },
      Stage: { Type: "AWS::ApiGateway::Stage", Properties: { TracingEnabled: true } },
    });
    const priced = byResource(perMillion.lines);
    expect(priced["EventBridge events"]).toMatchObject({ units: 50_000, usd: 0.05 });
    expect(priced["SQS requests"]).toMatchObject({ units: 150_000, usd: 0.075 });
    expect(priced["WAF requests"]).toMatchObject({ units: 1e6, usd: 0.6 });
    expect(priced["X-Ray traces"]).toMatchObject({ units: 1e6, usd: 5 });
  });

  it("states the bytes of a list of 100 posts of about 1,000 bytes, plain and gzipped", () => {
    // Distinct prose per post (repeats would gzip far smaller), at level 1 as lib/http/compress.ts.
    const docs = readdirSync(`${root}docs`).filter((name) => name.endsWith(".md"));
    const text = docs.sort().map((name) => readFileSync(`${root}docs/${name}`, "utf8"));
    const words = text.join(" ").replace(/\s+/g, " ");
    const stamp = "2026-28-11 10:00:00";
    const post = (id: number) => {
      const shell = { id, title: `Post ${id}`, content: "", created_at: stamp, updated_at: stamp };
      const room = WORKLOAD.postBytes - JSON.stringify(shell).length;
      const from = ((id - 1) * room) % (words.length - room);
      return { ...shell, content: words.slice(from, from + room) };
    };
    const json = JSON.stringify(Array.from({ length: WORKLOAD.posts }, (_, i) => post(i + 1)));
    const { plain, gzip } = WORKLOAD.listBytes;
    expect(Math.abs(Buffer.byteLength(json) / plain - 1)).toBeLessThan(0.01);
    expect(Math.abs(gzipSync(json, { level: 1 }).length / gzip - 1)).toBeLessThan(0.05);
  });
});

describe("what the pricing copies from the code", () => {
  it("counts the metric series as lib/http/metrics.ts and lib/events/queue-delivery.ts write them", () => {
    const counts = Object.fromEntries(STORAGE_COUNT_NAMES.map((name) => [name, 1]));
    const { _aws } = requestMetrics({ status: 200, durationMs: 1, coldStart: false, counts });
    const names = _aws.CloudWatchMetrics.flatMap((directive) => directive.Metrics);
    const delivery = readFileSync(`${root}lib/events/queue-delivery.ts`, "utf8");
    expect(METRIC_SERIES).toEqual({
      ListPostsLambdaFunction: names.length,
      DeliverWebhooksLambdaFunction: delivery.match(/_aws: emf\(/g)?.length,
    });
  });

  it("sizes a list's log line within 15% of the line lib/http/log-line.ts writes", async () => {
    vi.stubEnv("_X_AMZN_TRACE_ID", "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=0");
    const functionName = "blog-post-api-prod-listPosts";
    const invokedFunctionArn = `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`;
    const awsRequestId = "8f5c2a1e-3b4d-4e6f-9a7b-1c2d3e4f5a6b";
    const context = { functionName, memoryLimitInMB: "1024", invokedFunctionArn, awsRequestId };
    const request = {
      method: "GET",
      route: "GET /api/post",
      pathId: undefined,
      requestId: "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
      scope: { counts: { ListFromMemory: 1, ReadUnits: 8 } },
    };
    const invocation = invocationFields(context, false);
    const record = { request, invocation, started: performance.now() - 3 };
    const lines = await linesWrittenBy(() =>
      logRequest(createLogger("info"), record as never, { statusCode: 200, body: "" } as never, {}),
    );
    const bytes = Buffer.byteLength(lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
    expect(Math.abs(REQUEST_LINE_BYTES - bytes) / bytes).toBeLessThan(0.15);
  });
});
