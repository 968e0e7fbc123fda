// Mutation testing of lib/ (`npm run mutate`, which runs StrykerJS on the Lambda runtime's Node).
// MUTATE_LAYER=pure mutates the pure modules under the unit tests (no Java); storage mutates the
// DynamoDB modules under the integration tests. Per-test coverage runs only the tests that reach
// a mutant.
const LAYERS = {
  pure: [
    "lib/post.ts",
    "lib/timestamps.ts",
    "lib/errors.ts",
    "lib/config.ts",
    "lib/logger.ts",
    "lib/idempotency.ts",
    "lib/http-request.ts",
    "lib/http-response.ts",
    "lib/http-handler.ts",
    "lib/operations.ts",
    "lib/etag.ts",
  ],
  storage: [
    "lib/posts-table.ts",
    "lib/id-allocator.ts",
    "lib/idempotent-create.ts",
    "lib/idempotency-keys.ts",
    "lib/dynamodb.ts",
    "lib/repository.ts",
    "lib/change-marker.ts",
    "lib/list-cache.ts",
  ],
};
const layer = process.env.MUTATE_LAYER === "storage" ? "storage" : "pure";

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  // forks, as in npm test: the timestamp tests change TZ, which a worker thread does not honour.
  vitest: { configFile: "vitest.mutate.config.ts", related: false, pool: "forks" },
  coverageAnalysis: "perTest",
  // Static mutants (module-level constants) would each rerun every test that imports the module:
  // almost half the run's time for an eighth of the mutants. They are left out, and counted.
  ignoreStatic: true,
  mutate: LAYERS[layer],
  // The integration tests spend most of their time waiting (on DynamoDB Local, retries,
  // deadlines), so their runners share 2 cores well; the unit tests keep one runner per core.
  concurrency: layer === "storage" ? 4 : 2,
  timeoutMS: 10_000,
  reporters: ["clear-text", "progress-append-only", "json"],
  jsonReporter: { fileName: `reports/mutation/${layer}.json` },
  clearTextReporter: {
    allowColor: false,
    logTests: false,
    reportMutants: true,
    reportScoreTable: true,
  },
  // The run fails below its layer's target: 90% for the pure modules, 80% for storage.
  thresholds: { high: 90, low: 80, break: layer === "storage" ? 80 : 90 },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
