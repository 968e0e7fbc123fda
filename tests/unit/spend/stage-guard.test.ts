// Unit: what a change of the spending ledger asks of the stage (lib/spend/thresholds.ts), and the
// stage guard (lib/app/stage-guard.ts) doing it over fakes of API Gateway, EventBridge and SNS.
import { marshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBStreamEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { type GuardConfig, readGuardConfig } from "../../../lib/app/config.js";
import { guardHandler } from "../../../lib/app/stage-guard.js";
import { createLogger } from "../../../lib/http/logger.js";
import type { LedgerTotals } from "../../../lib/spend/meter.js";
import { stageActions } from "../../../lib/spend/thresholds.js";

const usd = (n: number) => Math.round(n * 1e9);
const at = (spent: number, ceiling?: number): LedgerTotals => ({
  spentNano: usd(spent),
  ceilingNano: ceiling === undefined ? undefined : usd(ceiling),
});

describe("what a ledger change asks of the stage", () => {
  it.each([
    ["crosses the limit", at(9.99), at(10), ["pause"]],
    ["crosses the warning share", at(7.9), at(8.1), ["warn"]],
    ["was at the warning share already", at(8), at(8.1), []],
    ["jumps past both at once", at(1), at(12), ["pause"]],
    ["stays under the warning", at(1), at(7.9), []],
    ["stays paused", at(10), at(11), []],
    ["is lifted by a resume", at(11), at(11, 21), ["resume"]],
    ["crosses a lifted ceiling", at(20.9, 21), at(21, 21), ["pause"]],
    ["nears a lifted ceiling", at(18.9, 21), at(19.1, 21), ["warn"]],
  ])("%s", (_, before, after, actions) => {
    expect(stageActions(before, after, 10)).toEqual(actions);
  });
});

const CONFIG: GuardConfig = {
  limitUsd: 10,
  restApiId: "api",
  stageName: "prod",
  rateLimit: 100,
  burstLimit: 200,
  busName: "bus",
  topicArn: "arn:aws:sns:us-east-1:1:alarms",
  ledgerTable: "keys",
  region: "us-east-1",
};

function guardWith(month: LedgerTotals = at(0), config = CONFIG) {
  const done: string[] = [];
  const handle = guardHandler(config, {
    setThrottle: async (rate, burst) => done.push(`throttle ${rate}/${burst}`),
    putEvent: async (type, detail) => done.push(`event ${type} ${JSON.stringify(detail)}`),
    notify: async (subject) => done.push(`notify ${subject}`),
    readMonth: async () => month,
    logger: createLogger("silent"),
  });
  return { done, handle };
}

const KEY = "spend 2026-11";
/** A stream record of the month's ledger item going from `before` to `after` (in dollars). */
const change = (before: number[], after: number[]): DynamoDBStreamEvent => {
  const image = ([spent, ceiling]: number[]) =>
    marshall(
      { key: KEY, spent_nano_usd: usd(spent!), ceiling_nano_usd: ceiling && usd(ceiling) },
      { removeUndefinedValues: true },
    ) as never;
  return { Records: [{ dynamodb: { OldImage: image(before), NewImage: image(after) } }] };
};

describe("the stage guard", () => {
  it("throttles the stage to 0, puts stage.paused and notifies, once, on the crossing", async () => {
    const { done, handle } = guardWith();
    await handle(change([9], [10.5]));
    expect(done).toEqual([
      "throttle 0/0",
      'event stage.paused {"stage":"prod","month":"2026-11","spentUsd":10.5,"limitUsd":10}',
      "notify Stage prod paused: it spent $10.50 of its $10 limit for 2026-11 (UTC).",
    ]);
    done.length = 0;
    await handle(change([10.5], [11]));
    expect(done).toEqual([]);
  });

  it("warns without a topic only on the bus, and restores the throttle on a resume", async () => {
    const { done, handle } = guardWith(at(0), { ...CONFIG, topicArn: undefined });
    await handle(change([7], [8]));
    expect(done).toEqual([
      'event stage.spend-warning {"stage":"prod","month":"2026-11","spentUsd":8,"limitUsd":10}',
    ]);
    done.length = 0;
    await handle(change([11], [11, 21]));
    expect(done).toEqual(["throttle 100/200"]);
  });

  it("pauses on a month's first write past the limit, and takes no removal for a resume", async () => {
    const { done, handle } = guardWith();
    const { OldImage, NewImage } = change([12], [12.5]).Records[0]!.dynamodb!;
    await handle({ Records: [{ dynamodb: { OldImage } }, { dynamodb: {} }] });
    await handle({});
    expect(done).toEqual([]);
    await handle({ Records: [{ dynamodb: { NewImage } }] });
    expect(done[0]).toBe("throttle 0/0");
  });

  it("reconciles the throttle with this month's ledger", async () => {
    const paused = guardWith(at(12));
    await paused.handle({ action: "reconcile" });
    const serving = guardWith(at(12, 22));
    await serving.handle({ action: "reconcile" });
    expect([paused.done, serving.done]).toEqual([["throttle 0/0"], ["throttle 100/200"]]);
  });

  it("reads its settings, refusing a missing one by name", () => {
    const env = {
      SPEND_LIMIT_USD: "10",
      REST_API_ID: "api",
      STAGE_NAME: "prod",
      API_RATE_LIMIT: "100",
      API_BURST_LIMIT: "200",
      EVENT_BUS_NAME: "bus",
      IDEMPOTENCY_TABLE_NAME: "keys",
    };
    expect(readGuardConfig(env)).toEqual({ ...CONFIG, topicArn: undefined });
    const topic = "arn:aws:sns:eu-west-1:1:alarms";
    const elsewhere = readGuardConfig({ ...env, ALARM_TOPIC_ARN: topic, AWS_REGION: "eu-west-1" });
    expect(elsewhere).toMatchObject({ topicArn: topic, region: "eu-west-1" });
    expect(() => readGuardConfig({ ...env, REST_API_ID: "" })).toThrow("REST_API_ID is not set");
  });
});
