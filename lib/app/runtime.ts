// The composition root: the logger and repository one Lambda instance shares, built once.
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { type Logger, createLogger } from "../http/logger.js";
import type { PostRepository } from "../posts/repository.js";
import { createDocumentClient } from "../storage/client.js";
import { DynamoPostRepository } from "../storage/dynamo-repository.js";
import type { Config } from "./config.js";

/** What every handler of an instance is built over. */
export interface Runtime {
  logger: Logger;
  posts: PostRepository;
}

/** The DynamoDB repository a configuration names, over `client`. */
export function dynamoRepository(config: Config, client: DynamoDBDocumentClient) {
  return new DynamoPostRepository(client, config.tableName, {
    idempotencyTableName: config.idempotencyTableName,
    idBlockSize: config.idBlockSize,
  });
}

/** Wires a configuration into a logger and a repository over a new client. */
export function buildRuntime(config: Config): Runtime {
  const posts = dynamoRepository(config, createDocumentClient(config));
  return { logger: createLogger(config.logLevel, config.serviceName), posts };
}
