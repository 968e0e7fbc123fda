// Composition root: the client, logger and repository one Lambda instance shares, built once.
import type { DynamoDBClientConfig } from "@aws-sdk/client-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Config } from "./config.js";
import { createDocumentClient } from "./dynamodb.js";
import { type Logger, createLogger } from "./logger.js";
import { DynamoPostRepository } from "./repository.js";

/** What every handler of an instance is built over. */
export interface Runtime {
  client: DynamoDBDocumentClient;
  logger: Logger;
  posts: DynamoPostRepository;
}

/** Wires a configuration into a client, a logger and a repository; `overrides` is for tests. */
export function buildRuntime(
  config: Config,
  overrides: Partial<DynamoDBClientConfig> = {},
): Runtime {
  const client = createDocumentClient(config, overrides);
  const posts = new DynamoPostRepository(client, config.tableName, {
    idempotencyTableName: config.idempotencyTableName,
    idBlockSize: config.idBlockSize,
  });
  return { client, logger: createLogger(config.logLevel, config.serviceName), posts };
}
