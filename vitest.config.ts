import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import SlowestFirst from "./tests/helpers/slow-first.js";

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    // A worker ended by a signal still stops the processes its tests started.
    setupFiles: ["tests/helpers/exit-on-signal.ts"],
    // Most files wait on other processes (DynamoDB Local, serverless-offline, a backoff): twice as
    // many files as cores, where vitest's default would run one at a time on 2 cores.
    maxWorkers: 2 * availableParallelism(),
    // The slowest files first when no earlier run's durations are kept (a fresh clone).
    sequence: { sequencer: SlowestFirst },
    projects: [
      // Pure rules and handlers over memory, no other process. Files share each worker's modules
      // (half the time): none keeps state between files, and mocks are restored or injected.
      {
        extends: true,
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          isolate: false,
          unstubEnvs: true,
        },
      },
      // The checks CI runs once (linters, the docs' links, the reference page): Node-independent.
      { extends: true, test: { name: "tools", include: ["tests/tools/**/*.test.ts"] } },
      // The service on DynamoDB Local: storage, handlers, HTTP, browser, runtime client, fuzz.
      {
        extends: true,
        test: {
          name: "service",
          include: ["tests/{integration,http,fuzz,browser}/**/*.test.ts"],
          globalSetup: ["tests/helpers/global-setup.ts"],
        },
      },
      // The developer's commands and the packaged template: the developer's machine, not Lambda.
      {
        extends: true,
        test: {
          name: "commands",
          include: ["tests/{scripts,packaging}/**/*.test.ts"],
          // A file's packagings, beside the other files' on a busy machine, outlast 2 min.
          hookTimeout: 300_000,
          globalSetup: ["tests/helpers/global-setup.ts"],
        },
      },
    ],
  },
});
