// Test harness: one in-memory DynamoDB Local for the whole run, stopped when the run ends.
import type { TestProject } from "vitest/node";
import { startDynamoDbLocal } from "../../scripts/dynamodb-local.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  const db = await startDynamoDbLocal();
  project.provide("dynamoEndpoint", db.endpoint);
  return () => db.stop();
}
