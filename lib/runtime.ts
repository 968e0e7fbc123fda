// Composition root: one configuration, logger and repository per Lambda instance, built at cold start.
import { readConfig } from "./config.js";
import { createLogger } from "./logger.js";
import { createDocumentClient } from "./dynamodb.js";
import { DynamoPostRepository } from "./repository.js";

const config = readConfig();

/** The instance's logger. */
export const logger = createLogger(config.logLevel);
/** The instance's repository over the configured table. */
export const repository = new DynamoPostRepository(createDocumentClient(config), config.tableName, {
  idempotencyTableName: config.idempotencyTableName,
  idBlockSize: config.idBlockSize,
});
