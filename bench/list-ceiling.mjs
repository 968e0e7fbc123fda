// `npm run bench:ceiling -- [--posts N]`: the figures behind docs/performance.md's "The ceiling, on
// AWS". The list bundle, streamed by the Lambda runtime's own client (aws-lambda-ric, on the
// runtime's Node), over a table of N posts of about 1 KB (100,000 by default: about 100 MB of
// JSON), in a new instance, beside the same function over 20 posts: every post received, the peak
// memory growth against the JSON, the first byte and the whole answer, then the gzipped answer
// from the instance's copy. It starts its own in-memory DynamoDB Local and stops it however it ends.
import { rm } from "node:fs/promises";
import { parseArgs } from "node:util";
import * as esbuild from "esbuild";
import { startDynamoDbLocal } from "../scripts/lib/dynamodb-local.mjs";
import { SetupError, requireJava } from "../scripts/lib/setup-checks.mjs";
import { buildBundles } from "./bundles.mjs";
import { LIMITS, TABLES, importFloor, seedTables, staging } from "./context.mjs";
import { streamInChild } from "./list-stream.mjs";
import { log, mb, runningChildren } from "./util.mjs";

const USAGE = `usage: npm run bench:ceiling -- [--posts N]

  --posts N   posts in the large table, 1,000 to 190,000 (default 100000: about 100 MB of JSON)
  --help      this text

Exit codes: 0 measured, 1 the measurement failed, 2 bad usage or no Java 17+, 130 interrupted.`;

/** @returns {number} */
function postsAsked() {
  const { values } = parseArgs({
    options: { posts: { type: "string", default: "100000" }, help: { type: "boolean" } },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const posts = Number(values.posts);
  if (!/^\d+$/.test(values.posts) || posts < 1_000 || posts > 190_000) {
    throw new SetupError(`--posts must be a whole number from 1000 to 190000, not ${values.posts}`);
  }
  return posts;
}

let posts = 0;
try {
  posts = postsAsked();
  requireJava();
} catch (error) {
  const known = error instanceof SetupError || (error instanceof Error && "code" in error);
  if (!known) throw error;
  console.error(`bench:ceiling: ${error.message}`);
  process.exit(2);
}

// Lambda runs Node 22+; the SDK's notice about Node 20 is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
/** @type {Promise<{ endpoint: string, stop(): Promise<void> }> | undefined} */
let db;
const cleanup = async () => {
  for (const child of runningChildren) child.kill("SIGKILL");
  await (await db?.catch(() => undefined))?.stop();
  await esbuild.stop();
  await rm(staging, { recursive: true, force: true });
};
process.once("SIGINT", () => void cleanup().finally(() => process.exit(130)));

let exitCode = 1;
try {
  log("building bundles");
  await buildBundles();
  log("starting DynamoDB Local");
  const { endpoint } = await (db = startDynamoDbLocal());
  const floor = await importFloor(endpoint);
  const large = `bench-list-ceiling-${posts}`;
  try {
    log(`seeding ${posts} posts`);
    const { contentChars } = LIMITS.list;
    const seeds = [
      [TABLES.listSmall, 1, 20, contentChars],
      [large, 1, posts, contentChars],
    ];
    await seedTables(
      endpoint,
      floor,
      /** @type {[string, number, number, number][]} */ (seeds),
      1_800_000,
    );
    log("listing 20 posts, then the large table, each in a new instance");
    const small = await streamInChild(endpoint, TABLES.listSmall, 600_000);
    const run = await streamInChild(endpoint, large, 600_000);
    const growth = run.peakRssBytes - small.peakRssBytes;
    /** @type {[string, string][]} */
    const figures = [
      ["posts received", `${run.posts} of ${posts}`],
      ["JSON", `${mb(run.jsonBytes).toFixed(1)} MB`],
      [
        "peak RSS growth",
        `${mb(growth).toFixed(1)} MB (${(growth / run.jsonBytes).toFixed(2)}x the JSON)`,
      ],
      [
        "peak RSS",
        `${mb(run.peakRssBytes).toFixed(1)} MB (20 posts: ${mb(small.peakRssBytes).toFixed(1)} MB)`,
      ],
      ["init, its Scan included", `${(run.initMs / 1000).toFixed(2)} s`],
      ["first byte", `${(run.firstByteMs / 1000).toFixed(2)} s`],
      ["whole answer", `${(run.totalMs / 1000).toFixed(2)} s`],
      [
        "gzipped, from the copy",
        `${mb(run.gzipBytes).toFixed(2)} MB in ${(run.gzipTotalMs / 1000).toFixed(2)} s`,
      ],
    ];
    for (const [name, value] of figures) console.log(`${name.padEnd(24)} ${value}`);
    exitCode = run.posts === posts ? 0 : 1;
  } finally {
    floor.destroy();
  }
} catch (error) {
  console.error(`bench:ceiling: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await cleanup();
}
// Imported bundles keep keep-alive sockets open; the bench is done with them.
process.exit(exitCode);
