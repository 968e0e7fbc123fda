// Test harness: the bundles built once, and one in-memory DynamoDB Local for the whole run,
// stopped when the run ends.
import type { TestProject } from "vitest/node";
import { build } from "../../scripts/build.mjs";
import { startDynamoDbLocal } from "../../scripts/dynamodb-local.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  // Built once, before any test file runs: the HTTP and packaging tests read dist/.
  const building = build();
  const db = await startDynamoDbLocal();
  try {
    await building;
  } catch (error) {
    await db.stop();
    throw error;
  }
  project.provide("dynamoEndpoint", db.endpoint);
  return () => db.stop();
}
