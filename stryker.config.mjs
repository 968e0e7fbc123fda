// Mutation testing of lib/ (`npm run mutate`, which runs StrykerJS on the Lambda runtime's Node).
// MUTATE_LAYER=pure mutates the post rules, the HTTP edge and the wiring under the unit tests (no Java);
// storage mutates the DynamoDB modules under the integration and unit tests. Per-test coverage
// runs only the tests that reach a mutant.
const LAYERS = {
  // Not lib/app/webhooks.ts: it wires the SQS and SSM clients for the events' delivery, which
  // like lib/events/ is outside both layers (docs/testing.md, Mutation testing).
  pure: ["lib/posts/**/*.ts", "lib/http/**/*.ts", "lib/app/**/*.ts", "!lib/app/webhooks.ts"],
  storage: ["lib/storage/**/*.ts"],
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
  // A mutant that hangs (a stream never drained, a key never fetched) counts as detected; a
  // short limit keeps the twenty or so that do from costing minutes of CI.
  timeoutMS: 3_000,
  reporters: ["clear-text", "progress-append-only", "json"],
  jsonReporter: { fileName: `reports/mutation/${layer}.json` },
  clearTextReporter: {
    allowColor: false,
    logTests: false,
    reportMutants: true,
    reportScoreTable: true,
  },
  // The run fails below its layer's target: 95% for the pure modules, 80% for storage.
  thresholds: { high: 95, low: 80, break: layer === "storage" ? 80 : 95 },
  // Only mutants whose code or tests changed since the committed baseline run again, so CI's run
  // takes seconds when lib/ and its tests are unchanged; each run writes the baseline anew
  // (commit it). Deleting the file runs every mutant.
  incremental: true,
  incrementalFile: `mutation-baseline/${layer}.json`,
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
