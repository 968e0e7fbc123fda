// `npm run bench`: builds the production bundles, starts its own in-memory DynamoDB Local and
// measures each handler beside a floor: bundle size, cold start, warm overhead, listing 10,000
// posts, create throughput. Prints a table of ratios and writes bench/results.json. Every loop is
// bounded by a count and a time budget; DynamoDB Local is stopped however the run ends.
import { copyFile, mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { build, bundleOptions, handlerNames } from "../scripts/build.mjs";
import {
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  ensureTable,
  localClient,
  startDynamoDbLocal,
} from "../scripts/dynamodb-local.mjs";
import {
  apiEvent,
  bounded,
  filler,
  formatTable,
  median,
  quantile,
  ratioRow,
  runNode,
  runningChildren,
} from "./util.mjs";

/** @typedef {import("./util.mjs").Row} Row */
/** @typedef {import("./util.mjs").ApiEvent} ApiEvent */
/** @typedef {(event: ApiEvent) => Promise<{ statusCode: number, body: string }>} Handler */
/** @typedef {ReturnType<import("./sdk-direct.mjs").createDirect>} Direct */

// Lambda runs Node 22+; the SDK's notice about Node 20 is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const root = fileURLToPath(new URL("..", import.meta.url));
const bench = `${root}bench`;

/** Counts and time budgets; the sum of the budgets keeps a run well under five minutes. */
const LIMITS = {
  bundleTargetKb: 300,
  coldRuns: 20,
  coldMinRuns: 10,
  coldBudgetMs: 75_000,
  childTimeoutMs: 30_000,
  warmWarmup: 100,
  warmIterations: 400,
  warmBudgetMsPerHandler: 7_000,
  listPosts: 10_000,
  listContentChars: 930,
  listRunsPerSide: 5,
  listBudgetMs: 75_000,
  seedConcurrency: 4,
  seedBudgetMs: 60_000,
  throughputConcurrency: 16,
  throughputWarmupMs: 2_000,
  throughputSegmentMs: 5_000,
  throughputIdBlockSize: 100,
  throughputMaxOpsPerSegment: 100_000,
};

/** The SDK surface each handler needs, for its bundle-size floor. */
const SDK_SURFACE = /** @type {Record<string, string[]>} */ ({
  "create-post": ["PutCommand", "UpdateCommand"],
  "delete-post": ["DeleteCommand"],
  "get-post": ["GetCommand"],
  "list-posts": ["paginateScan"],
  "update-post": ["UpdateCommand"],
});

const benchStarted = performance.now();
const elapsed = () => `${((performance.now() - benchStarted) / 1000).toFixed(1)}s`;
const log = (/** @type {string} */ message) =>
  process.stderr.write(`[bench ${elapsed()}] ${message}\n`);
const kb = (/** @type {number} */ bytes) => bytes / 1024;
const mb = (/** @type {number} */ bytes) => bytes / (1024 * 1024);

/** @type {Awaited<ReturnType<typeof startDynamoDbLocal>> | undefined} */
let db;
const staging = `${root}dist/.bench-${process.pid}`;

/** Ends child processes and DynamoDB Local; safe to call twice. */
let cleaning;
function cleanup() {
  cleaning ??= (async () => {
    for (const child of runningChildren) child.kill("SIGKILL");
    await db?.stop();
    await rm(staging, { recursive: true, force: true });
  })();
  return cleaning;
}
let interrupted = false;
for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) {
  process.once(signal, () => {
    interrupted = true;
    log(`${signal}: stopping`);
    void cleanup().finally(() => process.exit(130));
  });
}

/** A post item; with 930 characters of content, about 1 KB. */
const post = (/** @type {number} */ id, /** @type {number} */ contentChars) => ({
  id,
  title: `Post ${id}`,
  content: filler(id, contentChars),
  created_at: "2025-01-02T03:04:05.000Z",
  updated_at: "2025-01-02T03:04:05.000Z",
});

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

/** Builds every handler (into a private folder, then installed into dist/), the floors and the baseline. */
async function buildAll() {
  const results = await build({ outdir: staging, metafile: true });
  /** @type {Record<string, { bytes: number, withoutPluginsBytes: number, floorBytes: number, topInputs: [string, number][] }>} */
  const bundles = {};
  for (const [index, name] of handlerNames.entries()) {
    const built = `${staging}/${name}/index.mjs`;
    await mkdir(`${root}dist/${name}`, { recursive: true });
    const installing = `${root}dist/${name}/.index.mjs.bench-${process.pid}`;
    await copyFile(built, installing);
    await rename(installing, `${root}dist/${name}/index.mjs`);
    const surface = SDK_SURFACE[name] ?? Object.values(SDK_SURFACE).flat();
    const floor = await esbuild.build({
      ...bundleOptions,
      stdin: {
        contents:
          `export { DynamoDBClient } from "@aws-sdk/client-dynamodb";\n` +
          `export { DynamoDBDocumentClient, ${[...new Set(surface)].join(", ")} } from "@aws-sdk/lib-dynamodb";\n`,
        resolveDir: root,
        loader: "js",
      },
      outdir: `${staging}/floor-${name}`,
      write: false,
    });
    const metafile = results[index]?.metafile;
    /** @type {Record<string, number>} */
    const byPackage = {};
    for (const output of Object.values(metafile?.outputs ?? {})) {
      for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
        const match = /node_modules\/((?:@[^/]+\/)?[^/]+)(?:\/dist-es\/submodules\/([^/]+))?/.exec(
          input,
        );
        const key = match ? `${match[1]}${match[2] ? `/${match[2]}` : ""}` : input;
        byPackage[key] = (byPackage[key] ?? 0) + bytesInOutput;
      }
    }
    // The same handler built without the build's plugins: what the SDK's defaults would ship.
    const unplugged = await esbuild.build({
      ...bundleOptions,
      plugins: [],
      entryPoints: { index: `${root}handlers/${name}.ts` },
      outdir: `${staging}/unplugged-${name}`,
      write: false,
    });
    bundles[name] = {
      bytes: (await stat(`${root}dist/${name}/index.mjs`)).size,
      withoutPluginsBytes: unplugged.outputFiles.reduce((sum, f) => sum + f.contents.byteLength, 0),
      floorBytes: floor.outputFiles.reduce((sum, file) => sum + file.contents.byteLength, 0),
      topInputs: Object.entries(byPackage)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 12),
    };
  }
  for (const entry of ["sdk-direct", "sdk-handler"]) {
    await esbuild.build({
      ...bundleOptions,
      entryPoints: { index: `${bench}/${entry}.mjs` },
      outdir: `${staging}/${entry}`,
    });
  }
  return bundles;
}

/** The environment a handler gets on Lambda, pointed at DynamoDB Local. */
const lambdaEnv = (/** @type {string} */ endpoint, /** @type {string} */ table) => ({
  TABLE_NAME: table,
  AWS_ENDPOINT_URL_DYNAMODB: endpoint,
  AWS_REGION: LOCAL_REGION,
  AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
  LOG_LEVEL: "silent",
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
  TZ: "UTC",
});

/**
 * @typedef {object} Tables
 * @property {string} small posts 1..20, delete targets, and every create
 * @property {string} listSmall 20 posts of about 1 KB, never written during the bench
 * @property {string} listBig LIMITS.listPosts posts of about 1 KB
 */

/** Ids the delete handler and its baseline remove, each an existing post. */
const COLD_DELETE_BASE = 2_000_000;
const WARM_DELETE_BASE = 3_000_000;
const BARE_PUT_BASE = 10_000_000_000;

/**
 * Cold start: fresh `node` processes, each importing one bundle (or the empty floor handler) and
 * answering one event; rounds interleave the variants.
 * @param {string} endpoint @param {Tables} tables
 */
async function coldStart(endpoint, tables) {
  /** @type {Record<string, { table: string, status: number, event: (i: number) => ApiEvent }>} */
  const cases = {
    "create-post": {
      table: tables.small,
      status: 201,
      event: (i) =>
        apiEvent({ method: "POST", body: { title: `cold ${i}`, content: filler(i, 200) } }),
    },
    "delete-post": {
      table: tables.small,
      status: 204,
      event: (i) => apiEvent({ method: "DELETE", postId: COLD_DELETE_BASE + i }),
    },
    "get-post": {
      table: tables.small,
      status: 200,
      event: () => apiEvent({ method: "GET", postId: 1 }),
    },
    "list-posts": {
      table: tables.listSmall,
      status: 200,
      event: () => apiEvent({ method: "GET" }),
    },
    "update-post": {
      table: tables.small,
      status: 200,
      event: (i) => apiEvent({ method: "PUT", postId: 2, body: { title: `cold ${i}` } }),
    },
  };
  // "floor": an empty handler module; "sdk": the get handler's DynamoDB call, straight through
  // the SDK (bundled the same way), to show what of a cold start is the SDK's.
  const variants = ["floor", "sdk", ...handlerNames];
  /** @type {Record<string, string>} */
  const modules = { floor: `${bench}/empty-handler.mjs`, sdk: `${staging}/sdk-handler/index.mjs` };
  /** @type {Record<string, { answered: number[], imported: number[], spawnToAnswer: number[], spawnToExit: number[] }>} */
  const samples = Object.fromEntries(
    variants.map((v) => [v, { answered: [], imported: [], spawnToAnswer: [], spawnToExit: [] }]),
  );
  const rounds = await bounded(LIMITS.coldRuns, LIMITS.coldBudgetMs, async (round) => {
    for (let k = 0; k < variants.length; k++) {
      const variant = /** @type {string} */ (variants[(round + k) % variants.length]);
      const spec = cases[variant];
      const modulePath = modules[variant] ?? `${staging}/${variant}/index.mjs`;
      const event = spec ? spec.event(round) : apiEvent({ method: "GET", postId: 1 });
      const run = await runNode(
        [`${bench}/cold-child.mjs`, modulePath, JSON.stringify(event)],
        lambdaEnv(endpoint, spec?.table ?? tables.small),
        LIMITS.childTimeoutMs,
      );
      const report = JSON.parse(run.lines[0] ?? "{}");
      const expected = spec?.status ?? 200;
      if (report.status !== expected) {
        throw new Error(`cold ${variant} answered ${report.status}, not ${expected}`);
      }
      const s = /** @type {(typeof samples)[string]} */ (samples[variant]);
      s.answered.push(report.answered);
      s.imported.push(report.imported);
      s.spawnToAnswer.push(run.firstLineMs);
      s.spawnToExit.push(run.exitMs);
    }
  });
  if (rounds < LIMITS.coldMinRuns) {
    log(`cold start: only ${rounds} rounds within the budget (wanted >= ${LIMITS.coldMinRuns})`);
  }
  const summary = Object.fromEntries(
    Object.entries(samples).map(([variant, s]) => [
      variant,
      {
        runs: s.answered.length,
        answeredMs: median(s.answered),
        importedMs: median(s.imported),
        spawnToAnswerMs: median(s.spawnToAnswer),
        spawnToExitMs: median(s.spawnToExit),
      },
    ]),
  );
  return { rounds, summary };
}

/**
 * Warm overhead: each handler bundle in this process against the same SDK calls made directly,
 * alternating which side goes first. Each handler gets its own copy of the baseline module, so
 * both sides' SDK code has been through the same number of calls when the JIT compiles it.
 * @param {string} endpoint @param {Tables} tables
 */
async function warm(endpoint, tables) {
  /** @type {Record<string, Handler>} */
  const handlers = {};
  for (const name of handlerNames) {
    Object.assign(
      process.env,
      lambdaEnv(endpoint, name === "list-posts" ? tables.listSmall : tables.small),
    );
    handlers[name] = (await import(pathToFileURL(`${staging}/${name}/index.mjs`).href)).handler;
  }
  let deleteId = WARM_DELETE_BASE;
  const now = () => new Date().toISOString();
  /** @type {Record<string, { status: number, event: (i: number) => ApiEvent, direct: (direct: Direct, i: number) => Promise<unknown> }>} */
  const cases = {
    "create-post": {
      status: 201,
      event: (i) =>
        apiEvent({ method: "POST", body: { title: `warm ${i}`, content: filler(i, 200) } }),
      direct: (direct, i) =>
        direct.create(tables.small, {
          title: `warm ${i}`,
          content: filler(i, 200),
          created_at: now(),
          updated_at: now(),
        }),
    },
    "delete-post": {
      status: 204,
      event: () => apiEvent({ method: "DELETE", postId: ++deleteId }),
      direct: (direct) => direct.remove(tables.small, ++deleteId),
    },
    "get-post": {
      status: 200,
      event: () => apiEvent({ method: "GET", postId: 1 }),
      direct: (direct) => direct.get(tables.small, 1),
    },
    "list-posts": {
      status: 200,
      event: () => apiEvent({ method: "GET" }),
      direct: (direct) => direct.scanAll(tables.listSmall),
    },
    "update-post": {
      status: 200,
      event: (i) => apiEvent({ method: "PUT", postId: 2, body: { title: `warm ${i}` } }),
      direct: (direct, i) => direct.update(tables.small, 3, { title: `warm ${i}` }),
    },
  };
  /** @type {Record<string, { iterations: number, handler: { p50: number, p99: number }, direct: { p50: number, p99: number } }>} */
  const summary = {};
  for (const name of handlerNames) {
    const spec = cases[name];
    const handler = handlers[name];
    if (!spec || !handler) continue;
    // A query string makes a separate module instance of the same file.
    const baseline = `${pathToFileURL(`${staging}/sdk-direct/index.mjs`).href}?for=${name}`;
    /** @type {Direct} */
    const direct = (await import(baseline)).createDirect({
      endpoint,
      region: LOCAL_REGION,
    });
    /** @type {number[]} */
    const handlerMs = [];
    /** @type {number[]} */
    const directMs = [];
    const total = LIMITS.warmWarmup + LIMITS.warmIterations;
    try {
      const iterations = await bounded(total, LIMITS.warmBudgetMsPerHandler, async (i) => {
        const event = spec.event(i);
        const viaHandler = async () => {
          const started = performance.now();
          const response = await handler(event);
          const ms = performance.now() - started;
          if (response.statusCode !== spec.status) {
            throw new Error(`warm ${name} answered ${response.statusCode}: ${response.body}`);
          }
          if (i >= LIMITS.warmWarmup) handlerMs.push(ms);
        };
        const viaSdk = async () => {
          const started = performance.now();
          await spec.direct(direct, i);
          if (i >= LIMITS.warmWarmup) directMs.push(performance.now() - started);
        };
        if (i % 2 === 0) {
          await viaHandler();
          await viaSdk();
        } else {
          await viaSdk();
          await viaHandler();
        }
      });
      summary[name] = {
        iterations: Math.max(0, iterations - LIMITS.warmWarmup),
        handler: { p50: quantile(handlerMs, 0.5), p99: quantile(handlerMs, 0.99) },
        direct: { p50: quantile(directMs, 0.5), p99: quantile(directMs, 0.99) },
      };
    } finally {
      direct.destroy();
    }
  }
  return { summary, handlers };
}

/**
 * Listing the big table: the list handler against a bare paginated Scan, each in a fresh child
 * process, alternating.
 * @param {string} endpoint @param {Tables} tables
 */
async function listBig(endpoint, tables) {
  /** @type {{ ms: number, items: number, bytes: number, wireBytes: number, rssGrowth: number, heapGrowth: number, liveGrowth: number }[]} */
  const handlerRuns = [];
  /** @type {typeof handlerRuns} */
  const scanRuns = [];
  const env = lambdaEnv(endpoint, tables.listBig);
  const runOne = async (/** @type {"handler" | "scan"} */ mode) => {
    const args =
      mode === "handler"
        ? [`${bench}/list-child.mjs`, "handler", `${staging}/list-posts/index.mjs`]
        : [
            `${bench}/list-child.mjs`,
            "scan",
            `${staging}/sdk-direct/index.mjs`,
            endpoint,
            tables.listBig,
          ];
    const run = await runNode(["--expose-gc", ...args], env, LIMITS.childTimeoutMs * 2);
    const report = JSON.parse(run.lines[0] ?? "{}");
    if (report.items !== LIMITS.listPosts) {
      throw new Error(`list ${mode} returned ${report.items} posts, not ${LIMITS.listPosts}`);
    }
    (mode === "handler" ? handlerRuns : scanRuns).push(report);
  };
  const rounds = await bounded(LIMITS.listRunsPerSide, LIMITS.listBudgetMs, async (round) => {
    for (const mode of round % 2
      ? /** @type {const} */ (["scan", "handler"])
      : /** @type {const} */ (["handler", "scan"])) {
      await runOne(mode);
    }
  });
  const pick = (
    /** @type {typeof handlerRuns} */ runs,
    /** @type {"ms" | "rssGrowth" | "heapGrowth" | "liveGrowth" | "bytes" | "wireBytes"} */ key,
  ) => median(runs.map((r) => r[key]));
  return {
    rounds,
    handler: {
      ms: pick(handlerRuns, "ms"),
      responseBytes: pick(handlerRuns, "bytes"),
      wireBytes: pick(handlerRuns, "wireBytes"),
      rssGrowth: pick(handlerRuns, "rssGrowth"),
      heapGrowth: pick(handlerRuns, "heapGrowth"),
      liveGrowth: pick(handlerRuns, "liveGrowth"),
    },
    scan: {
      ms: pick(scanRuns, "ms"),
      rssGrowth: pick(scanRuns, "rssGrowth"),
      heapGrowth: pick(scanRuns, "heapGrowth"),
      liveGrowth: pick(scanRuns, "liveGrowth"),
    },
  };
}

/**
 * Keeps `concurrency` operations in flight for `ms` (or until `maxOps` were started).
 * @param {(n: number) => Promise<void>} op @param {number} ms
 */
async function saturate(op, ms) {
  let started = 0;
  let done = 0;
  let errors = 0;
  /** @type {unknown} */
  let firstError;
  const begin = performance.now();
  const deadline = begin + ms;
  const worker = async () => {
    while (performance.now() < deadline && started < LIMITS.throughputMaxOpsPerSegment) {
      const n = started++;
      try {
        await op(n);
        done++;
      } catch (error) {
        errors++;
        firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: LIMITS.throughputConcurrency }, worker));
  return { done, errors, firstError, ms: performance.now() - begin };
}

/**
 * Create throughput at a fixed concurrency: the create handler against bare conditional PutItems,
 * in segments ordered so that a drift in speed cancels out. A second copy of the create bundle,
 * loaded with ID_BLOCK_SIZE set, shows what reserving ids in blocks does (for information).
 * @param {string} endpoint @param {Tables} tables @param {Direct} direct @param {Handler} createHandler
 */
async function throughput(endpoint, tables, direct, createHandler) {
  Object.assign(process.env, lambdaEnv(endpoint, tables.small), {
    ID_BLOCK_SIZE: String(LIMITS.throughputIdBlockSize),
  });
  const createBundle = pathToFileURL(`${staging}/create-post/index.mjs`).href;
  /** @type {Handler} */
  const blockHandler = (await import(`${createBundle}?idBlockSize=${LIMITS.throughputIdBlockSize}`))
    .handler;
  delete process.env.ID_BLOCK_SIZE;

  let bareId = BARE_PUT_BASE;
  const content = filler(7, 200);
  const through = (/** @type {Handler} */ handler) => async (/** @type {number} */ n) => {
    const event = apiEvent({ method: "POST", body: { title: `tp ${n}`, content } });
    const response = await handler(event);
    if (response.statusCode !== 201) throw new Error(`create answered ${response.statusCode}`);
  };
  const sides = {
    handler: through(createHandler),
    block: through(blockHandler),
    bare: async (/** @type {number} */ n) => {
      const timestamp = new Date().toISOString();
      const item = {
        id: ++bareId,
        title: `tp ${n}`,
        content,
        created_at: timestamp,
        updated_at: timestamp,
      };
      await direct.put(tables.small, item);
    },
  };
  const totals = {
    handler: { done: 0, errors: 0, ms: 0 },
    bare: { done: 0, errors: 0, ms: 0 },
    block: { done: 0, errors: 0, ms: 0 },
  };
  // DynamoDB Local's write path gets faster as its JIT warms up: warm both kinds of write first.
  for (const side of /** @type {const} */ (["handler", "bare"])) {
    await saturate(sides[side], LIMITS.throughputWarmupMs);
  }
  const order = /** @type {const} */ (["handler", "bare", "block", "block", "bare", "handler"]);
  /** @type {{ side: string, perSecond: number }[]} */
  const segments = [];
  for (const side of order) {
    const result = await saturate(sides[side], LIMITS.throughputSegmentMs);
    segments.push({ side, perSecond: (result.done / result.ms) * 1000 });
    if (result.firstError)
      log(`throughput ${side}: ${result.errors} errors, first: ${result.firstError}`);
    totals[side].done += result.done;
    totals[side].errors += result.errors;
    totals[side].ms += result.ms;
  }
  const rate = (/** @type {{ done: number, errors: number, ms: number }} */ t) => ({
    ...t,
    perSecond: (t.done / t.ms) * 1000,
  });
  return {
    concurrency: LIMITS.throughputConcurrency,
    idBlockSize: LIMITS.throughputIdBlockSize,
    segments,
    handler: rate(totals.handler),
    bare: rate(totals.bare),
    block: rate(totals.block),
  };
}

/** Runs every phase; returns the results and the table rows. */
async function main() {
  log("building bundles");
  const bundles = await buildAll();
  log("starting DynamoDB Local");
  db = await startDynamoDbLocal();
  const endpoint = db.endpoint;
  const admin = localClient(endpoint);
  /** @type {Direct} */
  const direct = (await import(pathToFileURL(`${staging}/sdk-direct/index.mjs`).href)).createDirect(
    {
      endpoint,
      region: LOCAL_REGION,
    },
  );
  try {
    /** @type {Tables} */
    const tables = {
      small: "bench-small",
      listSmall: "bench-list-small",
      listBig: "bench-list-10k",
    };
    for (const table of Object.values(tables)) await ensureTable(admin, table);
    log(`seeding ${LIMITS.listPosts} posts`);
    const range = (/** @type {number} */ from, /** @type {number} */ count) =>
      Array.from({ length: count }, (_, i) => from + i);
    const deadline = performance.now() + LIMITS.seedBudgetMs;
    const chars = LIMITS.listContentChars;
    await seed(direct, tables.small, range(1, 20), chars, deadline);
    await seed(direct, tables.small, range(COLD_DELETE_BASE, LIMITS.coldRuns + 1), 200, deadline);
    const warmDeletes = 2 * (LIMITS.warmWarmup + LIMITS.warmIterations) + 2;
    await seed(direct, tables.small, range(WARM_DELETE_BASE, warmDeletes), 200, deadline);
    await seed(direct, tables.listSmall, range(1, 20), chars, deadline);
    await seed(direct, tables.listBig, range(1, LIMITS.listPosts), chars, deadline);

    log("cold start");
    const cold = await coldStart(endpoint, tables);
    log("warm overhead");
    const warmResult = await warm(endpoint, tables);
    log(`listing ${LIMITS.listPosts} posts`);
    const list = await listBig(endpoint, tables);
    log("create throughput");
    const createHandler = /** @type {Handler} */ (warmResult.handlers["create-post"]);
    const tp = await throughput(endpoint, tables, direct, createHandler);

    /** @type {Row[]} */
    const rows = [];
    for (const name of handlerNames) {
      const b = bundles[name];
      if (!b) continue;
      rows.push(
        ratioRow({
          metric: "bundle size (vs bare SDK bundle)",
          name,
          value: kb(b.bytes),
          floor: kb(b.floorBytes),
          unit: "KB",
          target: { maxValue: LIMITS.bundleTargetKb },
        }),
      );
    }
    const floor = cold.summary.floor;
    for (const name of handlerNames) {
      const c = cold.summary[name];
      if (!c || !floor) continue;
      rows.push(
        ratioRow({
          metric: `cold start, process start to answer (median of ${c.runs})`,
          name,
          value: c.answeredMs,
          floor: floor.answeredMs,
          unit: "ms",
          target: { max: 1.8 },
        }),
      );
    }
    const sdk = cold.summary.sdk;
    if (sdk && floor) {
      rows.push(
        ratioRow({
          metric: "cold start, process start to answer",
          name: "bare SDK GetItem (no handler)",
          value: sdk.answeredMs,
          floor: floor.answeredMs,
          unit: "ms",
        }),
      );
    }
    for (const name of handlerNames) {
      const c = cold.summary[name];
      if (!c || !sdk) continue;
      rows.push(
        ratioRow({
          metric: "cold start vs bare SDK GetItem",
          name,
          value: c.answeredMs,
          floor: sdk.answeredMs,
          unit: "ms",
        }),
      );
    }
    for (const name of handlerNames) {
      const c = cold.summary[name];
      if (!c || !floor) continue;
      rows.push(
        ratioRow({
          metric: "cold start, spawn to answer (wall)",
          name,
          value: c.spawnToAnswerMs,
          floor: floor.spawnToAnswerMs,
          unit: "ms",
        }),
      );
    }
    for (const [name, w] of Object.entries(warmResult.summary)) {
      rows.push(
        ratioRow({
          metric: `warm p50 (vs direct SDK, n=${w.iterations})`,
          name,
          value: w.handler.p50,
          floor: w.direct.p50,
          unit: "ms",
          target: { max: 1.1 },
        }),
      );
    }
    for (const [name, w] of Object.entries(warmResult.summary)) {
      rows.push(
        ratioRow({
          metric: "warm p99 (vs direct SDK)",
          name,
          value: w.handler.p99,
          floor: w.direct.p99,
          unit: "ms",
        }),
      );
    }
    rows.push(
      ratioRow({
        metric: `list ${LIMITS.listPosts} time (vs bare paginated Scan, median of ${list.rounds})`,
        name: "list-posts",
        value: list.handler.ms,
        floor: list.scan.ms,
        unit: "ms",
        target: { max: 1.2 },
      }),
      ratioRow({
        metric: `list ${LIMITS.listPosts} peak RSS growth (vs JSON response size)`,
        name: "list-posts",
        value: mb(list.handler.rssGrowth),
        floor: mb(list.handler.responseBytes),
        unit: "MB",
        target: { max: 2 },
      }),
      ratioRow({
        metric: `list ${LIMITS.listPosts} peak heap growth (vs JSON response size)`,
        name: "list-posts",
        value: mb(list.handler.heapGrowth),
        floor: mb(list.handler.responseBytes),
        unit: "MB",
      }),
      ratioRow({
        metric: `list ${LIMITS.listPosts} items held by a bare Scan (vs JSON response size)`,
        name: "bare Scan, after GC",
        value: mb(list.scan.liveGrowth),
        floor: mb(list.handler.responseBytes),
        unit: "MB",
      }),
      ratioRow({
        metric: `list ${LIMITS.listPosts} peak RSS growth (vs bare Scan's)`,
        name: "list-posts",
        value: mb(list.handler.rssGrowth),
        floor: mb(list.scan.rssGrowth),
        unit: "MB",
      }),
      ratioRow({
        metric: `create throughput at concurrency ${tp.concurrency} (vs bare PutItem)`,
        name: "create-post",
        value: tp.handler.perSecond,
        floor: tp.bare.perSecond,
        unit: "/s",
        target: { min: 0.5 },
      }),
      ratioRow({
        metric: `create throughput, ID_BLOCK_SIZE=${tp.idBlockSize} (vs bare PutItem)`,
        name: "create-post",
        value: tp.block.perSecond,
        floor: tp.bare.perSecond,
        unit: "/s",
      }),
    );
    return { bundles, cold, warm: warmResult.summary, list, throughput: tp, rows };
  } finally {
    admin.destroy();
    direct.destroy();
  }
}

let exitCode = 0;
try {
  const results = await main();
  const dbPid = db?.pid;
  await cleanup();
  let javaLeft = false;
  if (dbPid !== undefined) {
    try {
      process.kill(dbPid, 0);
      javaLeft = true;
    } catch {
      // ESRCH: DynamoDB Local is gone, as it should be.
    }
  }
  const wallSeconds = (performance.now() - benchStarted) / 1000;
  console.log(formatTable(results.rows));
  const unplugged = Object.values(results.bundles).map((b) => kb(b.withoutPluginsBytes));
  console.log(
    `(built without scripts/build.mjs's plugins, the bundles would be ` +
      `${Math.min(...unplugged).toFixed(0)}-${Math.max(...unplugged).toFixed(0)} KB)`,
  );
  const missed = results.rows.filter((row) => row.met === false).length;
  const targeted = results.rows.filter((row) => row.met !== undefined).length;
  console.log(
    `\n${targeted - missed}/${targeted} targets met; bench wall time ${wallSeconds.toFixed(1)} s; ` +
      `DynamoDB Local ${javaLeft ? "STILL RUNNING" : "stopped"}.`,
  );
  await writeFile(
    `${bench}/results.json`,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        node: process.version,
        cpus: availableParallelism(),
        wallSeconds,
        limits: LIMITS,
        ...results,
      },
      null,
      2,
    )}\n`,
  );
  console.log("results written to bench/results.json");
  if (javaLeft) exitCode = 1;
} catch (error) {
  // After a signal, the failure is only the phase that was cut short.
  if (!interrupted) console.error(error);
  exitCode = 1;
} finally {
  await cleanup();
}
// Imported handler bundles keep keep-alive sockets open; the bench is done with them.
process.exit(exitCode);
