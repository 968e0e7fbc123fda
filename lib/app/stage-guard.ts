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
import {
  type LedgerTotals,
  type StageAction,
  isPaused,
  stageActions,
} from "../spend/thresholds.js";
import { createDocumentClient } from "../storage/client.js";
import { Sender } from "../storage/sender.js";
import { SpendLedgerTable } from "../storage/spend-ledger.js";
import type { GuardConfig } from "./config.js";

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

/**
 * Each ledger item's change in a stream batch: its month, and its totals before and after. An
 * item's removal (its time to live, months on) is no crossing: read as one, a paused month's
 * expiry would lift the throttle of a month paused now.
 */
function changesOf(event: GuardEvent) {
  const written = (event.Records ?? []).filter(({ dynamodb: change }) => change?.NewImage);
  return written.map(({ dynamodb: change }) => {
    const [before, after] = [change?.OldImage, change?.NewImage].map((image) =>
      image ? unmarshall(image as Parameters<typeof unmarshall>[0]) : undefined,
    );
    const month = String(after?.key ?? before?.key ?? "").replace(/^spend /, "");
    return { month, before: totalsOf(before), after: totalsOf(after) };
  });
}

/** Does what one crossing asks: restores the throttle, or throttles or warns and tells. */
async function act(
  config: GuardConfig,
  ports: GuardPorts,
  action: StageAction,
  month: string,
  after: LedgerTotals,
) {
  const facts = { month, spentUsd: after.spentNano / 1e9, limitUsd: config.limitUsd };
  if (action === "resume") {
    ports.logger.info("stage resumed", facts);
    return ports.setThrottle(config.rateLimit, config.burstLimit);
  }
  const spent = `spent $${facts.spentUsd.toFixed(2)} of its $${config.limitUsd} limit for ${month} (UTC).`;
  const text = `Stage ${config.stageName} ${action === "pause" ? `paused: it ${spent}` : spent}`;
  // The instance whose flush crossed the limit wrote the one error line; this says what was done.
  ports.logger.info(action === "pause" ? "stage throttled to 0" : "stage warned", facts);
  await Promise.allSettled([
    action === "pause" ? ports.setThrottle(0, 0) : undefined,
    ports.putEvent(STAGE_DETAIL_TYPES[action], { stage: config.stageName, ...facts }),
    config.topicArn ? ports.notify(text.slice(0, 99), text) : undefined,
  ]);
}

/** The guard's handler over its ports. */
export function guardHandler(config: GuardConfig, ports: GuardPorts) {
  return async (event: GuardEvent): Promise<void> => {
    if (event.action === "reconcile") {
      const month = monthOf(Date.now());
      const paused = isPaused(await ports.readMonth(month), config.limitUsd);
      ports.logger.info("stage reconciled", { month, paused });
      await (paused
        ? ports.setThrottle(0, 0)
        : ports.setThrottle(config.rateLimit, config.burstLimit));
      return;
    }
    for (const { month, before, after } of changesOf(event)) {
      for (const action of stageActions(before, after, config.limitUsd)) {
        await act(config, ports, action, month, after);
      }
    }
  };
}

/** The guard's ports over AWS's clients. */
function awsPorts(config: GuardConfig): GuardPorts {
  const region = config.region;
  const gateway = new APIGatewayClient({ region });
  const bus = new EventBridgeClient({ region });
  const sns = new SNSClient({ region });
  const db = createDocumentClient({ region, endpoint: undefined });
  const ledger = new SpendLedgerTable(new Sender(db, [config.ledgerTable]), config.ledgerTable);
  const entry = { EventBusName: config.busName, Source: EVENT_SOURCE };
  return {
    setThrottle: (rate, burst) =>
      gateway.send(
        new UpdateStageCommand({
          restApiId: config.restApiId,
          stageName: config.stageName,
          patchOperations: [
            { op: "replace", path: "/*/*/throttling/rateLimit", value: String(rate) },
            { op: "replace", path: "/*/*/throttling/burstLimit", value: String(burst) },
          ],
        }),
      ),
    putEvent: (detailType, detail) =>
      bus.send(
        new PutEventsCommand({
          Entries: [{ ...entry, DetailType: detailType, Detail: JSON.stringify(detail) }],
        }),
      ),
    notify: (subject, message) =>
      sns.send(
        new PublishCommand({ TopicArn: config.topicArn, Subject: subject, Message: message }),
      ),
    readMonth: (month) => ledger.read(month),
    logger: createLogger("info"),
  };
}

/** The guard over AWS's clients. */
export const stageGuard = (config: GuardConfig) => guardHandler(config, awsPorts(config));
