// Test harness: the bundles built once, and one in-memory DynamoDB Local for the whole run,
// stopped when the run ends.
import type { TestProject } from "vitest/node";
import { build } from "../../scripts/build.mjs";
import { startDynamoDbLocal } from "../../scripts/lib/dynamodb-local.mjs";
import { SetupError, requireJava } from "../../scripts/lib/setup-checks.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  try {
    requireJava();
  } catch (error) {
    if (!(error instanceof SetupError)) throw error;
    // The message says what to install; vitest would bury it under its own stack trace.
    console.error(`\n${error.message}\n`);
    process.exit(1);
  }
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
