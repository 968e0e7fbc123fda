import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import SlowestFirst from "./tests/helpers/slow-first.js";

// Lambda runs Node 22+; the SDK notice about Node 20 is noise in test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Most test files spend their time waiting on other processes (DynamoDB Local,
    // serverless-offline, a retry's backoff), so twice as many files as cores run at once, where
    // vitest would run one fewer than the cores: one file at a time on 2 cores.
    maxWorkers: 2 * availableParallelism(),
    // The slowest files first when no earlier run's durations are kept (a fresh clone).
    sequence: { sequencer: SlowestFirst },
    projects: [
      // Pure rules, handlers over memory, bundles built in memory: no Java, nothing written.
      { extends: true, test: { name: "unit", include: ["tests/unit/**/*.test.ts"] } },
      // Everything that needs DynamoDB Local, the bundles or serverless-offline.
      {
        extends: true,
        test: {
          name: "storage",
          include: ["tests/**/*.test.ts"],
          exclude: ["tests/unit/**"],
          globalSetup: ["tests/helpers/global-setup.ts"],
        },
      },
    ],
  },
});
