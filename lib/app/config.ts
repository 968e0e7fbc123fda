// Configuration: the environment, read once per Lambda instance, failing fast when it is wrong.
import type { LogLevel } from "../http/logger.js";
import { parseOrigins } from "../http/cors.js";

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
}

/** Reads the configuration from an environment; throws when a setting is missing or wrong. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const tableName = env.TABLE_NAME;
  if (!tableName) throw new Error("TABLE_NAME is not set");
  const logLevel = env.LOG_LEVEL || "info";
  if (logLevel !== "info" && logLevel !== "error" && logLevel !== "silent") {
    throw new Error(`LOG_LEVEL must be info, error or silent, not ${logLevel}`);
  }
  const idBlockSize = Number(env.ID_BLOCK_SIZE || 1);
  if (!Number.isSafeInteger(idBlockSize) || idBlockSize < 1 || idBlockSize > 10_000) {
    throw new Error(`ID_BLOCK_SIZE must be an integer from 1 to 10000, not ${env.ID_BLOCK_SIZE}`);
  }
  return {
    tableName,
    idempotencyTableName: env.IDEMPOTENCY_TABLE_NAME || undefined,
    endpoint: env.AWS_ENDPOINT_URL_DYNAMODB || undefined,
    region: env.AWS_REGION || "us-east-1",
    logLevel,
    serviceName: env.POWERTOOLS_SERVICE_NAME || undefined,
    idBlockSize,
    corsOrigins: parseOrigins(env.CORS_ORIGINS),
  };
}
