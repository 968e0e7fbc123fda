// The bench's tables in its own DynamoDB Local, and the posts seeded in them before any section.
import { ensureTable, localClient } from "../scripts/dynamodb-local.mjs";
import { COLD_DELETE_BASE, LIMITS, TABLES, WARM_DELETE_BASE, log } from "./context.mjs";
import { filler } from "./util.mjs";

/** Posts with ids `from`..`from + count - 1` (930 characters of content: about 1 KB each). */
const posts = (
  /** @type {number} */ from,
  /** @type {number} */ count,
  /** @type {number} */ chars,
) =>
  Array.from({ length: count }, (_, i) => ({
    id: from + i,
    title: `Post ${from + i}`,
    content: filler(from + i, chars),
    created_at: "2025-01-02T03:04:05.000Z",
    updated_at: "2025-01-02T03:04:05.000Z",
  }));

/** Creates the tables (each with its id counter) and seeds every post the sections read or delete. */
export async function prepareTables(
  /** @type {string} */ endpoint,
  /** @type {import("./context.mjs").Floor} */ floor,
) {
  const admin = localClient(endpoint);
  try {
    for (const table of Object.values(TABLES)) await ensureTable(admin, table);
  } finally {
    admin.destroy();
  }
  log(`seeding ${LIMITS.listPosts} posts`);
  const deadline = performance.now() + LIMITS.seedBudgetMs;
  const chars = LIMITS.listContentChars;
  // Each warm iteration deletes twice: once through the handler, once through the floor.
  const warmDeletes = 2 * (LIMITS.warmWarmup + LIMITS.warmIterations) + 2;
  /** @type {[string, ReturnType<typeof posts>][]} */
  const batches = [];
  for (const [table, all] of /** @type {const} */ ([
    [TABLES.small, posts(1, 20, chars)],
    [TABLES.small, posts(COLD_DELETE_BASE, LIMITS.coldRuns + 1, 200)],
    [TABLES.small, posts(WARM_DELETE_BASE, warmDeletes, 200)],
    [TABLES.listSmall, posts(1, 20, chars)],
    [TABLES.listBig, posts(1, LIMITS.listPosts, chars)],
  ])) {
    for (let i = 0; i < all.length; i += 25) batches.push([table, all.slice(i, i + 25)]);
  }
  const worker = async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) {
      if (performance.now() > deadline) throw new Error("seeding ran out of time");
      await floor.batchPut(...batch);
    }
  };
  await Promise.all(Array.from({ length: LIMITS.seedConcurrency }, worker));
}
