// The bench's tables in its own DynamoDB Local, and the posts seeded in them before any section.
import { ensureTable, localClient } from "../scripts/dynamodb-local.mjs";
import { LIMITS, log } from "./context.mjs";
import { filler } from "./util.mjs";

/** @typedef {import("./context.mjs").Direct} Direct */

/** The tables' names, by what they hold. */
export const TABLES = {
  /** Posts 1..20, delete targets, and every create. */
  small: "bench-small",
  /** 20 posts of about 1 KB, never written during the bench. */
  listSmall: "bench-list-small",
  /** LIMITS.listPosts posts of about 1 KB. */
  listBig: "bench-list-10k",
};

/** First ids the delete handler and its baseline remove, each an existing post. */
export const COLD_DELETE_BASE = 2_000_000;
export const WARM_DELETE_BASE = 3_000_000;
/** Bare PutItems write from here, far above any id the counter issues during a run. */
export const BARE_PUT_BASE = 10_000_000_000;

/** A post item; with 930 characters of content, about 1 KB. */
const post = (/** @type {number} */ id, /** @type {number} */ contentChars) => ({
  id,
  title: `Post ${id}`,
  content: filler(id, contentChars),
  created_at: "2025-01-02T03:04:05.000Z",
  updated_at: "2025-01-02T03:04:05.000Z",
});

const range = (/** @type {number} */ from, /** @type {number} */ count) =>
  Array.from({ length: count }, (_, i) => from + i);

/**
 * Writes posts with these ids in BatchWrites of 25, a few at a time, until `deadline`.
 * @param {Direct} direct @param {string} table @param {number[]} ids @param {number} contentChars
 * @param {number} deadline `performance.now()` after which seeding fails
 */
async function seed(direct, table, ids, contentChars, deadline) {
  /** @type {number[][]} */
  const batches = [];
  for (let i = 0; i < ids.length; i += 25) batches.push(ids.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      if (performance.now() > deadline) throw new Error(`seeding ${table} ran out of time`);
      const batch = /** @type {number[]} */ (batches[next++]);
      await direct.batchPut(
        table,
        batch.map((id) => post(id, contentChars)),
      );
    }
  };
  await Promise.all(Array.from({ length: LIMITS.seedConcurrency }, worker));
}

/** Creates the tables (each with its id counter) and seeds every post the sections read or delete. */
export async function prepareTables(/** @type {string} */ endpoint, /** @type {Direct} */ direct) {
  const admin = localClient(endpoint);
  try {
    for (const table of Object.values(TABLES)) await ensureTable(admin, table);
  } finally {
    admin.destroy();
  }
  log(`seeding ${LIMITS.listPosts} posts`);
  const deadline = performance.now() + LIMITS.seedBudgetMs;
  const chars = LIMITS.listContentChars;
  await seed(direct, TABLES.small, range(1, 20), chars, deadline);
  await seed(direct, TABLES.small, range(COLD_DELETE_BASE, LIMITS.coldRuns + 1), 200, deadline);
  // Each warm iteration deletes twice: once through the handler, once through the baseline.
  const warmDeletes = 2 * (LIMITS.warmWarmup + LIMITS.warmIterations) + 2;
  await seed(direct, TABLES.small, range(WARM_DELETE_BASE, warmDeletes), 200, deadline);
  await seed(direct, TABLES.listSmall, range(1, 20), chars, deadline);
  await seed(direct, TABLES.listBig, range(1, LIMITS.listPosts), chars, deadline);
}
