// Configuration: the environment, read once per Lambda instance, failing fast when it is wrong.
// The functions' settings are parsed as config/settings.cjs checks them when packaging
// (lib/shared/settings.ts), so a value a package was built with never fails here.
import type { LogLevel } from "../http/logger.js";
import {
  parseIdBlockSize,
  parseLogLevel,
  parseOrigins,
  parseSpendLimitUsd,
} from "../shared/settings.js";

/** Settings every handler needs, read from the environment. */
export interface Config {
  tableName: string;
  /** Table of Idempotency-Key records; undefined turns the header away with 400. */
  idempotencyTableName: string | undefined;
  /** DynamoDB endpoint override (DynamoDB Local); undefined on AWS. */
  endpoint: string | undefined;
  region: string;
  logLevel: LogLevel;
  /** The `service` key of every log line (Powertools' POWERTOOLS_SERVICE_NAME); the logger's default when absent. */
  serviceName?: string;
  /** Ids each instance reserves per counter call; 1 means one counter call per create. */
  idBlockSize: number;
  /** Origins whose browser apps may read the answers (CORS_ORIGINS, `*` for any); none when empty. */
  corsOrigins: readonly string[];
  /**
   * The stage's monthly spending limit in US dollars (SPEND_LIMIT_USD); undefined when off.
   * readConfig always sets it; a configuration built by hand may leave it out, metering off.
   */
  spendLimitUsd?: number | undefined;
}

/** Reads the configuration from an environment; throws when a setting is missing or wrong. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const tableName = env.TABLE_NAME;
  if (!tableName) throw new Error("TABLE_NAME is not set");
  return {
    tableName,
    idempotencyTableName: env.IDEMPOTENCY_TABLE_NAME || undefined,
    endpoint: env.AWS_ENDPOINT_URL_DYNAMODB || undefined,
    region: env.AWS_REGION || "us-east-1",
    logLevel: parseLogLevel(env.LOG_LEVEL),
    serviceName: env.POWERTOOLS_SERVICE_NAME || undefined,
    idBlockSize: parseIdBlockSize(env.ID_BLOCK_SIZE),
    corsOrigins: parseOrigins(env.CORS_ORIGINS),
    spendLimitUsd: parseSpendLimitUsd(env.SPEND_LIMIT_USD),
  };
}

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
