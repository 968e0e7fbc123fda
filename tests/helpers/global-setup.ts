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
  // The service and commands projects share one build and one DynamoDB Local: both name this
  // setup, which vitest runs once per project, in one process.
  const shared = ((globalThis as { [SHARED]?: Shared })[SHARED] ??= { users: 0 });
  shared.users += 1;
  const db = await (shared.started ??= buildAndStart());
  project.provide("dynamoEndpoint", db.endpoint);
  return async () => {
    shared.users -= 1;
    if (shared.users === 0) await db.stop();
  };
}

const SHARED = Symbol.for("blog-post-api.global-setup");
interface Shared {
  users: number;
  started?: ReturnType<typeof buildAndStart>;
}

/** The bundles built (the HTTP and packaging tests read dist/) and DynamoDB Local started. */
async function buildAndStart() {
  const building = build();
  const db = await startDynamoDbLocal();
  try {
    await building;
  } catch (error) {
    await db.stop();
    throw error;
  }
  return db;
}
