// What a stage costs, read from its packaged CloudFormation template and config/prices.json: each
// resource's cost a month when nobody calls the API (after the always-free tiers), and what a
// million requests of a stated mix add at list price. Pure: `npm run cost` packages and prints.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

/** @type {{ FUNCTION_IDS: Record<string, string> }} */
const { FUNCTION_IDS } = createRequire(import.meta.url)("../../config/names.cjs");

/**
 * @typedef {{ region: string, read: string, prices: Record<string, { usd: number, per: number }>,
 *   freeTiers: Record<string, { amount: number }>, perUseOnly: Record<string, string> }} Prices
 */
/** @typedef {{ Type: string, Properties?: Record<string, any> }} Resource */
/** @typedef {{ Resources?: Record<string, Resource> }} Template */
/** @typedef {{ resource: string, usd: number, type?: string, note?: string, gzipUsd?: number }} Line */
/** @typedef {{ usd: number, note: string } | { why: string } | undefined} Cost */
/** @typedef {{ rate(name: string): number, afterFree(tier: string, amount: number): number }} Pricing */

const A_MONTH_SECONDS = 30 * 24 * 3600;
/** Estimates, not prices: a DynamoDB stream's reader polls its shard about 4 times a second… */
const STREAM_POLLS = 4 * A_MONTH_SECONDS;
/** …and Lambda's idle SQS pollers (about 5, each a 20-second long poll) make 15 requests a minute. */
const SQS_POLLS = (15 * A_MONTH_SECONDS) / 60;
/** One request's log line (lib/http/log-line.ts, measured) and Lambda's own lines (estimated). */
export const REQUEST_LINE_BYTES = 800;
const PLATFORM_LINES_BYTES = 400;
/**
 * The custom metric series (EMF) each function's lines carry: the list's ways of answering
 * (lib/http/metrics.ts) and the webhook delivery's two counts (lib/events/queue-delivery.ts).
 */
export const METRIC_SERIES = { ListPostsLambdaFunction: 3, DeliverWebhooksLambdaFunction: 2 };
const GB = 2 ** 30;

/** The mix, sizes and durations a million requests are priced at; `npm run cost` states them. */
export const WORKLOAD = {
  requests: 1_000_000,
  mix: { list: 0.8, get: 0.15, write: 0.05 },
  posts: 100,
  postBytes: 1000,
  /** Such a list's JSON, plain and gzipped as the list route gzips (tests/unit/scripts/cost.test.ts measures it). */
  listBytes: { plain: 100_290, gzip: 35_543 },
  /** Each route's warm p50 under `npm run bench` (docs/performance.md): local, on DynamoDB Local. */
  routeMs: { listPosts: 2.76, getPost: 2.05, createPost: 17.7, updatePost: 12.5, deletePost: 9.31 },
  /** A function no route calls (events, a token authorizer): a call a write, this long. */
  otherFunctionMs: 100,
};

/** A CloudFormation string (plain, Fn::Sub or Fn::Join) as text, a reference kept as ${Name}. */
function text(/** @type {any} */ value) {
  if (typeof value === "string") return value;
  if (value?.["Fn::Sub"] !== undefined) return text([value["Fn::Sub"]].flat()[0]);
  if (value?.["Fn::Join"]) return value["Fn::Join"][1].map(text).join(value["Fn::Join"][0]);
  return `\${${value?.Ref ?? [value?.["Fn::GetAtt"] ?? "?"].flat().join(".")}}`;
}

/** The logical id a Ref, GetAtt or Sub names, if any. */
const target = (/** @type {any} */ value) => /^\$\{([^.}]+)/.exec(text(value))?.[1] ?? "";

/**
 * The distinct metrics (namespace, name, dimensions) a dashboard's body shows, or why unknown.
 * @param {any} body @returns {{ count: number } | { why: string }}
 */
export function dashboardMetrics(body) {
  const source = text(body);
  if (/\b(SEARCH|SELECT)\b/.test(source)) return { why: "a SEARCH or SELECT expression" };
  let widgets;
  try {
    widgets = JSON.parse(source).widgets ?? [];
  } catch {
    return { why: "its DashboardBody is not JSON" };
  }
  const seen = new Set();
  for (const widget of widgets) {
    /** @type {string[]} */
    let row = [];
    for (const entry of widget.properties?.metrics ?? []) {
      /** @type {string[]} */
      const fields = entry.filter((/** @type {any} */ f) => typeof f === "string");
      if (fields.length === 0) continue; // an expression over other rows
      // CloudWatch's shorthands: "..." repeats the row above's leading fields, "." one field.
      if (fields[0] === "...") fields.splice(0, 1, ...row.slice(0, row.length - fields.length + 1));
      row = fields.map((f, i) => (f === "." ? (row[i] ?? f) : f));
      seen.add(row.join(" "));
    }
  }
  return { count: seen.size };
}

/**
 * The metrics an alarm reads (its metric, or each MetricStat of its Metrics), or why unknown.
 * @param {Record<string, any>} alarm @returns {{ count: number } | { why: string }}
 */
function alarmMetrics(alarm) {
  const metrics = alarm.MetricName ? [{ MetricStat: true }] : (alarm.Metrics ?? []);
  if (JSON.stringify(metrics).includes("SELECT ")) return { why: "a Metrics Insights alarm" };
  return { count: metrics.filter((/** @type {any} */ m) => m.MetricStat).length };
}

/**
 * One resource's idle cost a month, or why it cannot be told; undefined when its type is billed
 * only per use (prices.perUseOnly).
 * @param {Resource} resource @param {Template} template @param {Pricing} pricing @returns {Cost}
 */
function idleCost({ Type: type, Properties: p = {} }, template, { rate, afterFree }) {
  switch (type) {
    case "AWS::WAFv2::WebACL": {
      const rules = (p.Rules ?? []).length;
      return { usd: rate("wafWebAcls") + rules * rate("wafRules"), note: `and ${rules} rule(s)` };
    }
    case "AWS::Cognito::UserPoolClient":
      if (!(p.AllowedOAuthFlows ?? []).includes("client_credentials")) return undefined;
      return { usd: rate("cognitoM2mClients"), note: "client-credentials grant, used or not" };
    case "AWS::CloudWatch::Dashboard": {
      const shown = dashboardMetrics(p.DashboardBody);
      if (!("count" in shown)) return shown;
      const free = shown.count <= 50 && afterFree("cloudWatchDashboards", 1) === 0;
      const usd = free ? 0 : rate("cloudWatchDashboards");
      return { usd, note: `${shown.count} metrics${free ? ": a free dashboard" : ""}` };
    }
    case "AWS::CloudWatch::Alarm": {
      const read = alarmMetrics(p);
      if (!("count" in read)) return read;
      const billed = afterFree("cloudWatchAlarmMetrics", read.count);
      return { usd: billed * rate("cloudWatchAlarmMetrics"), note: `${read.count} metric(s)` };
    }
    case "AWS::Pipes::Pipe": {
      if (!/StreamArn|:dynamodb:/.test(JSON.stringify(p.Source))) return { why: "its source" };
      const usd = afterFree("dynamodbStreamsReads", STREAM_POLLS) * rate("dynamodbStreamsReads");
      return { usd, note: "estimate: polls one stream shard 4 times a second (streams reads)" };
    }
    case "AWS::Lambda::EventSourceMapping": {
      const queue = template.Resources?.[target(p.EventSourceArn)];
      if (queue?.Type !== "AWS::SQS::Queue") return undefined;
      const price = queue.Properties?.FifoQueue ? "sqsFifoRequests" : "sqsStandardRequests";
      const usd = afterFree("sqsRequests", SQS_POLLS) * rate(price);
      return { usd, note: "estimate: Lambda polls its queue, 648,000 requests a month" };
    }
    case "AWS::DynamoDB::Table":
      return p.BillingMode === "PAY_PER_REQUEST" ? undefined : { why: "provisioned capacity" };
    case "AWS::ApiGateway::Stage":
      return p.CacheClusterEnabled ? { why: "a cache cluster, billed by the hour" } : undefined;
  }
}

/**
 * What `workload`'s requests use, as [what, units, price, note, units with the list gzipped].
 * @param {Template} template @param {typeof WORKLOAD} workload
 * @returns {[string, number, string, string, number][]}
 */
function perRequestUnits(template, { requests, mix, postBytes, listBytes, ...workload }) {
  const all = Object.entries(template.Resources ?? {});
  const ofType = (/** @type {string} */ type) => all.filter(([, r]) => r.Type === type);
  const [lists, gets, writes] = [mix.list * requests, mix.get * requests, mix.write * requests];
  /** @type {[string, number, string, string, number][]} */
  const units = [];
  /** @param {string} what @param {number} n @param {string} price */
  const add = (what, n, price, note = "", gzipped = n) =>
    n > 0 && units.push([what, n, price, note, gzipped]);
  add("API Gateway REST requests", requests, "apiGatewayRestRequests");
  let [calls, gbSeconds] = [0, 0];
  for (const [id, { Properties: fn = {} }] of ofType("AWS::Lambda::Function")) {
    const route = Object.keys(FUNCTION_IDS).find((key) => FUNCTION_IDS[key] === id) ?? "";
    const n = { listPosts: lists, getPost: gets }[route] ?? (route ? writes / 3 : writes);
    const ms = Math.ceil(/** @type {any} */ (workload.routeMs)[route] ?? workload.otherFunctionMs);
    calls += n;
    gbSeconds += (n * ms * (fn.MemorySize ?? 128)) / 1024 / 1000;
  }
  add("Lambda invocations", calls, "lambdaRequests", "a route's a request, the others' a write");
  add("Lambda GB-seconds", gbSeconds, "lambdaArmGbSeconds", "local bench durations, each memory");
  // docs/design.md (the list cache): a list reads the change marker's 8 shards, 1 unit each; a
  // write's post is read once by the next list of each warm instance (one assumed); a get, 1.
  add("DynamoDB read units", 8 * lists + gets + writes, "dynamodbReadRequestUnits", "8 a list");
  // A create writes the id counter, the post, the marker's ADD and SET; an update or a delete, 3.
  add("DynamoDB write units", (10 / 3) * writes, "dynamodbWriteRequestUnits", "4 a create, else 3");
  const sent = (/** @type {number} */ list) => (lists * list + (gets + writes) * postBytes) / GB;
  add("Data transfer out, GB", sent(listBytes.plain), "dataTransferOut", "", sent(listBytes.gzip));
  const count = (/** @type {string} */ type) => ofType(type).length;
  add("EventBridge events", count("AWS::Events::EventBus") * writes, "eventBridgeCustomEvents");
  add("EventBridge Pipes requests", count("AWS::Pipes::Pipe") * writes, "pipesRequests");
  for (const [, { Properties: mapping = {} }] of ofType("AWS::Lambda::EventSourceMapping")) {
    const queue = template.Resources?.[target(mapping.EventSourceArn)];
    const price = queue?.Properties?.FifoQueue ? "sqsFifoRequests" : "sqsStandardRequests";
    if (queue?.Type === "AWS::SQS::Queue") add("SQS requests", 3 * writes, price, "3 a write");
  }
  const written = Object.entries(METRIC_SERIES).filter(([id]) => template.Resources?.[id]);
  const series = written.reduce((all, [, count]) => all + count, 0);
  add("CloudWatch metrics", series, "cloudWatchMetrics", "a month's charge for each EMF series");
  const stage = ofType("AWS::ApiGateway::Stage")[0]?.[1].Properties ?? {};
  const access = String(stage.AccessLogSetting?.Format ?? "").length;
  const logged = (requests * (REQUEST_LINE_BYTES + PLATFORM_LINES_BYTES + access)) / GB;
  add("CloudWatch Logs, GB", logged, "cloudWatchLogsIngestion", access ? "with access logs" : "");
  add("WAF requests", count("AWS::WAFv2::WebACL") && requests, "wafRequests");
  // At most: X-Ray's default rule keeps a request each second and 5% of the rest.
  add("X-Ray traces", stage.TracingEnabled ? requests : 0, "xrayTraces", "at most");
  return units;
}

const round = (/** @type {number} */ usd) => Math.round(usd * 10_000) / 10_000;
/** The sum of the lines' `key`: usd, or gzipUsd for the per-million figure with gzip. */
export const sum = (/** @type {Line[]} */ lines, key = /** @type {"usd" | "gzipUsd"} */ ("usd")) =>
  round(lines.reduce((all, line) => all + (line[key] ?? 0), 0));

/**
 * What the template costs: idle a month, resource by resource, and for `workload`'s requests.
 * @param {Template} template @param {Prices} prices
 */
export function priceTemplate(template, prices, workload = WORKLOAD) {
  const left = Object.fromEntries(Object.entries(prices.freeTiers).map(([k, v]) => [k, v.amount]));
  /** @type {Pricing} */
  const pricing = {
    rate: (name) => (prices.prices[name]?.usd ?? NaN) / (prices.prices[name]?.per ?? 1),
    afterFree(tier, amount) {
      const free = Math.min(left[tier] ?? 0, amount);
      left[tier] = (left[tier] ?? 0) - free;
      return amount - free;
    },
  };
  /** @type {Line[]} */
  const idle = [];
  const unknown = [];
  for (const [resource, entry] of Object.entries(template.Resources ?? {})) {
    const { Type: type } = entry;
    const perUse = prices.perUseOnly[type];
    const fallback = perUse ? { usd: 0, note: perUse } : { why: "not in config/prices.json" };
    const cost = idleCost(entry, template, pricing) ?? fallback;
    if ("why" in cost) unknown.push({ resource, type, why: cost.why });
    else idle.push({ resource, type, usd: round(cost.usd), note: cost.note });
  }
  const perMillion = perRequestUnits(template, workload).map(([resource, n, price, note, gz]) => {
    const usd = (/** @type {number} */ units) => round(units * pricing.rate(price));
    return { resource, units: round(n), usd: usd(n), gzipUsd: usd(gz), note };
  });
  return {
    idle: { totalUsd: sum(idle), lines: idle },
    perMillion: { totalUsd: sum(perMillion), lines: perMillion },
    unknown,
  };
}

const root = new URL("../../", import.meta.url);

/**
 * What a packaged template costs, at config/prices.json's prices, for the stated workload.
 * @param {Template} template
 */
export async function stageCost(template) {
  const prices = JSON.parse(await readFile(new URL("config/prices.json", root), "utf8"));
  return { prices, cost: priceTemplate(template, prices, WORKLOAD) };
}

/** The two lines `npm run deploy` prints before it deploys: idle, and a million requests. */
export function costSummary(/** @type {ReturnType<typeof priceTemplate>} */ cost) {
  const gzip = sum(cost.perMillion.lines, "gzipUsd");
  const unknown = cost.unknown.length ? `; not priced: ${cost.unknown.map((u) => u.type)}` : "";
  return [
    `Idle, a month: $${cost.idle.totalUsd.toFixed(2)} after the free tiers${unknown}`,
    `A million requests: $${cost.perMillion.totalUsd.toFixed(2)} ($${gzip.toFixed(2)} gzipped)` +
      " at list price (npm run cost says what it assumes)",
  ];
}
