// The stage's guard on AWS: it reads the month's ledger item as it changes (the Idempotency-Key
// table's stream, filtered to ledger items) and, once per crossing, warns, or pauses the stage
// where refusals are free: its throttle set to 0, so API Gateway turns requests away unbilled.
// It restores the throttle on a resume, and at the month's turn or after a deploy ("reconcile").
import { APIGatewayClient, UpdateStageCommand } from "@aws-sdk/client-api-gateway";
import { EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import { PublishCommand, SNSClient } from "@aws-sdk/client-sns";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBStreamEvent } from "aws-lambda";
import { EVENT_SOURCE } from "../events/bus-sender.js";
import { type Logger, createLogger } from "../http/logger.js";
import { monthOf } from "../spend/calendar.js";
import type { LedgerTotals } from "../spend/meter.js";
import { type StageAction, isPaused, stageActions } from "../spend/stage-switch.js";
import { createDocumentClient } from "../storage/client.js";
import { Sender } from "../storage/sender.js";
import { SpendLedgerTable } from "../storage/spend-ledger.js";

/** What the guard is told by its environment (config/spend.cjs sets it). */
export interface GuardConfig {
  limitUsd: number;
  restApiId: string;
  stageName: string;
  /** The stage's throttle when it serves: API_RATE_LIMIT and API_BURST_LIMIT. */
  rateLimit: number;
  burstLimit: number;
  busName: string;
  topicArn: string | undefined;
  ledgerTable: string;
  region: string;
}

/** The detail-types the guard puts on the stage's bus (asyncapi.yaml). */
export const STAGE_DETAIL_TYPES = { pause: "stage.paused", warn: "stage.spend-warning" } as const;

/** What the guard acts through; the AWS clients in `stageGuard`, fakes in its tests. */
export interface GuardPorts {
  setThrottle(rate: number, burst: number): Promise<unknown>;
  putEvent(detailType: string, detail: object): Promise<unknown>;
  notify(subject: string, message: string): Promise<unknown>;
  readMonth(month: string): Promise<LedgerTotals>;
  logger: Logger;
}

const totalsOf = (image: Record<string, unknown> | undefined): LedgerTotals => ({
  spentNano: Number(image?.spent_nano_usd ?? 0),
  ceilingNano: image?.ceiling_nano_usd === undefined ? undefined : Number(image.ceiling_nano_usd),
});

type GuardEvent = Partial<DynamoDBStreamEvent> & { action?: "reconcile" };

/** The guard's handler over its ports. */
export function guardHandler(config: GuardConfig, ports: GuardPorts) {
  const act = async (action: StageAction, month: string, after: LedgerTotals) => {
    const spent = `$${(after.spentNano / 1e9).toFixed(2)}`;
    const facts = { month, spentUsd: after.spentNano / 1e9, limitUsd: config.limitUsd };
    if (action === "resume") {
      ports.logger.info("stage resumed", facts);
      return ports.setThrottle(config.rateLimit, config.burstLimit);
    }
    const text =
      action === "pause"
        ? `Stage ${config.stageName} paused: it spent ${spent} of its $${config.limitUsd} limit for ${month} (UTC).`
        : `Stage ${config.stageName} spent ${spent} of its $${config.limitUsd} limit for ${month} (UTC).`;
    // The instance whose flush crossed the limit wrote the one error line; this says what was done.
    ports.logger.info(action === "pause" ? "stage throttled to 0" : "stage warned", facts);
    await Promise.allSettled([
      action === "pause" ? ports.setThrottle(0, 0) : undefined,
      ports.putEvent(STAGE_DETAIL_TYPES[action], { stage: config.stageName, ...facts }),
      config.topicArn ? ports.notify(text.slice(0, 99), text) : undefined,
    ]);
  };

  return async (event: GuardEvent): Promise<void> => {
    if (event.action === "reconcile") {
      const month = monthOf(Date.now());
      const totals = await ports.readMonth(month);
      const paused = isPaused(totals, config.limitUsd);
      ports.logger.info("stage reconciled", { month, paused });
      await (paused
        ? ports.setThrottle(0, 0)
        : ports.setThrottle(config.rateLimit, config.burstLimit));
      return;
    }
    for (const record of event.Records ?? []) {
      const change = record.dynamodb;
      const images = [change?.OldImage, change?.NewImage].map((image) =>
        image ? unmarshall(image as Parameters<typeof unmarshall>[0]) : undefined,
      );
      const month = String(images[1]?.key ?? images[0]?.key ?? "").replace(/^spend /, "");
      const after = totalsOf(images[1]);
      for (const action of stageActions(totalsOf(images[0]), after, config.limitUsd)) {
        await act(action, month, after);
      }
    }
  };
}

/** GuardConfig from the environment; throws when the stage is not named. */
export function readGuardConfig(env: NodeJS.ProcessEnv = process.env): GuardConfig {
  const need = (name: string) => {
    const value = env[name];
    if (!value) throw new Error(`${name} is not set`);
    return value;
  };
  return {
    limitUsd: Number(need("SPEND_LIMIT_USD")),
    restApiId: need("REST_API_ID"),
    stageName: need("STAGE_NAME"),
    rateLimit: Number(need("API_RATE_LIMIT")),
    burstLimit: Number(need("API_BURST_LIMIT")),
    busName: need("EVENT_BUS_NAME"),
    topicArn: env.ALARM_TOPIC_ARN || undefined,
    ledgerTable: need("IDEMPOTENCY_TABLE_NAME"),
    region: env.AWS_REGION || "us-east-1",
  };
}

/** The guard over AWS's clients. */
export function stageGuard(config: GuardConfig) {
  const region = config.region;
  const gateway = new APIGatewayClient({ region });
  const bus = new EventBridgeClient({ region });
  const sns = new SNSClient({ region });
  const db = createDocumentClient({ region, endpoint: undefined });
  const ledger = new SpendLedgerTable(new Sender(db, [config.ledgerTable]), config.ledgerTable);
  const value = (n: number) => String(n);
  return guardHandler(config, {
    setThrottle: (rate, burst) =>
      gateway.send(
        new UpdateStageCommand({
          restApiId: config.restApiId,
          stageName: config.stageName,
          patchOperations: [
            { op: "replace", path: "/*/*/throttling/rateLimit", value: value(rate) },
            { op: "replace", path: "/*/*/throttling/burstLimit", value: value(burst) },
          ],
        }),
      ),
    putEvent: (detailType, detail) =>
      bus.send(
        new PutEventsCommand({
          Entries: [
            {
              EventBusName: config.busName,
              Source: EVENT_SOURCE,
              DetailType: detailType,
              Detail: JSON.stringify(detail),
            },
          ],
        }),
      ),
    notify: (subject, message) =>
      sns.send(
        new PublishCommand({ TopicArn: config.topicArn, Subject: subject, Message: message }),
      ),
    readMonth: (month) => ledger.read(month),
    logger: createLogger("info"),
  });
}
