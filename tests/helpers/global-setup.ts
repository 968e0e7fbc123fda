// Test harness: the bundles built once, one in-memory DynamoDB Local for the whole run and the
// pool of shared serverless-offline instances over it, and the run's package cache, all stopped or
// removed when the run ends.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { build } from "../../scripts/build.mjs";
import { startDynamoDbLocal } from "../../scripts/lib/dynamodb-local.mjs";
import { SetupError, requireJava } from "../../scripts/lib/setup-checks.mjs";
import { startOfflinePool } from "./offline-pool.js";

declare module "vitest" {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    /** Where leaseOffline asks for a shared serverless-offline (tests/helpers/offline-pool.ts). */
    offlinePool: string;
    /** Where packagedBeforeAll keeps each configuration's packaging (tests/helpers/package.ts). */
    packageCache: string;
  }
}

export default async function setup(project: TestProject) {
  try {
    requireJava();
  } catch (error) {
    if (!(error instanceof SetupError)) throw error;
    // The message says what to install; vitest would bury it under a stack trace.
    console.error(`\n${error.message}\n`);
    process.exit(1);
  }
  // One build, DynamoDB Local and pool for both projects naming this setup (run once per project).
  const shared = ((globalThis as { [SHARED]?: Shared })[SHARED] ??= { users: 0 });
  shared.users += 1;
  const { db, pool, packages } = await (shared.started ??= buildAndStart());
  project.provide("dynamoEndpoint", db.endpoint);
  project.provide("offlinePool", pool.url);
  project.provide("packageCache", packages);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    await pool.stop();
    await db.stop();
    await rm(packages, { recursive: true, force: true });
  };
}

const SHARED = Symbol.for("blog-post-api.global-setup");
type Shared = { users: number; started?: ReturnType<typeof buildAndStart> };

/** The bundles built (the HTTP and packaging tests read dist/), DynamoDB Local and the pool started. */
async function buildAndStart() {
  const building = build();
  const db = await startDynamoDbLocal();
  try {
    await building;
  } catch (error) {
    await db.stop();
    throw error;
  }
  const packages = await mkdtemp(join(tmpdir(), "blog-post-packages-"));
  return { db, pool: await startOfflinePool(db.endpoint), packages };
}
