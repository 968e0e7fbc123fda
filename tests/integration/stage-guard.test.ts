// Integration: the spend ledger on DynamoDB Local, and the stage's guard over the AWS SDK's own
// clients with API Gateway, EventBridge and SNS answered by a recorder on loopback (none of the
// three runs locally): the requests it sends are the ones AWS would receive.
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { marshall } from "@aws-sdk/util-dynamodb";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readGuardConfig } from "../../lib/app/config.js";
import { stageGuard } from "../../lib/app/stage-guard.js";
import { monthOf } from "../../lib/spend/calendar.js";
import { SpendMeter } from "../../lib/spend/meter.js";
import { noUsage, toNanoUsd, usageUsd } from "../../lib/spend/pricing.js";
import { Sender } from "../../lib/storage/sender.js";
import { SpendLedgerTable } from "../../lib/storage/spend-ledger.js";
import { type PostsTable, freshTable } from "../helpers/db.js";

let table: PostsTable;
let ledger: SpendLedgerTable;
let recorder: Server;
const seen: { method: string; url: string; target: string; body: string }[] = [];

/** Answers each service as AWS would a success, and keeps what it was sent. */
function record(target: string, body: string, method: string, url: string) {
  seen.push({ method, url, target, body });
  if (target.startsWith("AWSEvents")) return '{"FailedEntryCount":0,"Entries":[{"EventId":"e"}]}';
  if (target.includes("SNS") || body.includes("Action=Publish")) {
    return target
      ? '{"MessageId":"m"}'
      : "<PublishResponse><PublishResult><MessageId>m</MessageId></PublishResult></PublishResponse>";
  }
  return "{}";
}

beforeAll(async () => {
  table = await freshTable("stage-guard");
  const sender = new Sender(table.documentClient, [table.idempotencyTableName]);
  ledger = new SpendLedgerTable(sender, table.idempotencyTableName);
  recorder = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const target = String(request.headers["x-amz-target"] ?? "");
      const answer = record(target, body, String(request.method), String(request.url));
      const type = answer.startsWith("<") ? "text/xml" : "application/json";
      response.writeHead(200, { "content-type": type }).end(answer);
    });
  });
  await new Promise<void>((resolve) => recorder.listen(0, "127.0.0.1", resolve));
  const at = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
  for (const service of ["API_GATEWAY", "EVENTBRIDGE", "SNS"]) {
    vi.stubEnv(`AWS_ENDPOINT_URL_${service}`, at);
  }
  vi.stubEnv("AWS_ENDPOINT_URL_DYNAMODB", table.endpoint);
  vi.stubEnv("AWS_ACCESS_KEY_ID", "local");
  vi.stubEnv("AWS_SECRET_ACCESS_KEY", "local");
});
afterAll(async () => {
  vi.unstubAllEnvs();
  recorder?.close();
  await table.drop();
});

const guardOver = () =>
  stageGuard(
    readGuardConfig({
      SPEND_LIMIT_USD: "1",
      REST_API_ID: "api123",
      STAGE_NAME: "prod",
      API_RATE_LIMIT: "100",
      API_BURST_LIMIT: "200",
      EVENT_BUS_NAME: "bus",
      ALARM_TOPIC_ARN: "arn:aws:sns:us-east-1:123456789012:alarms",
      IDEMPOTENCY_TABLE_NAME: table.idempotencyTableName,
    }),
  );

// Months long past, apart from the current month the guard reconciles.
describe("the spend ledger", () => {
  it("adds every instance's flush atomically, in an item the posts never see", async () => {
    const usage = { ...noUsage(), requests: 1, bytesOut: 1000, readUnits: 0.5 };
    const nano = toNanoUsd(usageUsd(usage));
    const meters = Array.from({ length: 8 }, () => {
      let clock = Date.UTC(2025, 10, 28);
      const quiet = { onCrossing: () => {}, onFailure: () => {} };
      return new SpendMeter({ limitUsd: 10, ledger, now: () => (clock += 20_000), ...quiet });
    });
    await Promise.all(
      meters.map(async (meter) => {
        meter.record(usage);
        await meter.settle();
      }),
    );
    expect(await ledger.read("2025-11")).toEqual({ spentNano: 8 * nano, ceilingNano: undefined });
    expect(await table.posts()).toEqual([]);
    expect(await ledger.read("2025-10")).toEqual({ spentNano: 0, ceilingNano: undefined });
  });

  it("lifts a month's ceiling to its spending plus the limit its instances flushed under", async () => {
    await ledger.add("2025-09", { ...noUsage(), requests: 3 }, 5_000, 1_000);
    const lifted = { spentNano: 5_000, ceilingNano: 6_000, limitNano: 1_000 };
    expect(await ledger.lift("2025-09")).toEqual(lifted);
    expect(await ledger.read("2025-09")).toEqual({ spentNano: 5_000, ceilingNano: 6_000 });
    expect(await ledger.lift("2025-08")).toBeUndefined();
  });
});

describe("the stage's guard on the SDK's clients", () => {
  it("throttles the stage to 0, puts stage.paused and publishes when a flush crosses the limit", async () => {
    seen.length = 0;
    const key = "spend 2026-11";
    const image = (usd: number) => marshall({ key, spent_nano_usd: usd * 1e9 });
    await guardOver()({
      Records: [{ dynamodb: { OldImage: image(0.9) as never, NewImage: image(1.2) as never } }],
    });
    const patch = seen.find((s) => s.method === "PATCH");
    expect(patch?.url).toBe("/restapis/api123/stages/prod");
    expect(JSON.parse(patch?.body ?? "{}").patchOperations).toEqual([
      { op: "replace", path: "/*/*/throttling/rateLimit", value: "0" },
      { op: "replace", path: "/*/*/throttling/burstLimit", value: "0" },
    ]);
    const put = JSON.parse(seen.find((s) => s.target.startsWith("AWSEvents"))?.body ?? "{}");
    expect(put.Entries[0]).toMatchObject({ EventBusName: "bus", DetailType: "stage.paused" });
    const detail = { stage: "prod", month: "2026-11", spentUsd: 1.2, limitUsd: 1 };
    expect(JSON.parse(put.Entries[0].Detail)).toEqual(detail);
    const publish = seen.find((s) => /Publish/.test(s.target + s.body));
    expect(decodeURIComponent(publish?.body ?? "")).toContain(
      "arn:aws:sns:us-east-1:123456789012:alarms",
    );
  });

  it("reconciles the throttle with this month's ledger on DynamoDB Local", async () => {
    seen.length = 0;
    const month = monthOf(Date.now());
    await ledger.add(month, noUsage(), 0.5e9, 1e9);
    await guardOver()({ action: "reconcile" });
    await ledger.add(month, noUsage(), 0.6e9, 1e9);
    await guardOver()({ action: "reconcile" });
    const values = seen
      .filter((s) => s.method === "PATCH")
      .map((s) => JSON.parse(s.body).patchOperations.map((op: { value: string }) => op.value));
    expect(values).toEqual([
      ["100", "200"],
      ["0", "0"],
    ]);
  });
});
