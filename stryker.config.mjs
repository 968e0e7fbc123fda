// Mutation testing of lib/ (`npm run mutate`, on the Lambda runtime's Node): pure, the post rules,
// HTTP edge, spending limit and wiring, under the unit tests; storage, the DynamoDB modules, under
// both.
const LAYERS = {
  // Not lib/app/webhooks.ts: like lib/events/, the events' delivery is in neither layer; nor the
  // stage's guard, whose work is AWS's calls (its decisions are lib/spend/'s); nor the get's
  // rehearsal at init, whose only effect is speed, which the bench measures.
  pure: [
    "lib/posts/**/*.ts",
    "lib/http/**/*.ts",
    "lib/spend/**/*.ts",
    "lib/shared/**/*.ts",
    "lib/app/**/*.ts",
    "!lib/app/webhooks.ts",
    "!lib/app/stage-guard.ts",
    "!lib/app/rehearsal.ts",
  ],
  storage: ["lib/storage/**/*.ts"],
};
const layer = process.env.MUTATE_LAYER === "storage" ? "storage" : "pure";

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  // forks, as in npm test: the timestamp tests change TZ, which a worker thread does not honour.
  vitest: { configFile: "vitest.mutate.config.ts", related: false, pool: "forks" },
  coverageAnalysis: "perTest",
  // A static mutant (module-level constant) reruns every test importing the module: half the
  // run's time for an eighth of the mutants. Left out, and counted.
  ignoreStatic: true,
  mutate: LAYERS[layer],
  // Integration tests mostly wait, so 4 runners share 2 cores; unit tests get one per core.
  concurrency: layer === "storage" ? 4 : 2,
  // A hanging mutant counts as detected; a short limit keeps the twenty or so from costing minutes.
  timeoutMS: 3_000,
  reporters: ["clear-text", "progress-append-only", "json"],
  jsonReporter: { fileName: `reports/mutation/${layer}.json` },
  clearTextReporter: { allowColor: false, logTests: false },
  thresholds: { high: 95, low: 80, break: layer === "storage" ? 80 : 95 },
  // Only mutants whose code or tests changed since the committed baseline run again (seconds in
  // CI when lib/ is unchanged); each run rewrites it. Deleting it runs every mutant.
  incremental: true,
  incrementalFile: `mutation-baseline/${layer}.json`,
  cleanTempDir: "always",
};
