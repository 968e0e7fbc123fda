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
    // A worker ended by a signal still stops the processes its tests started.
    setupFiles: ["tests/helpers/exit-on-signal.ts"],
    // Most test files spend their time waiting on other processes (DynamoDB Local,
    // serverless-offline, a retry's backoff), so twice as many files as cores run at once, where
    // vitest would run one fewer than the cores: one file at a time on 2 cores.
    maxWorkers: 2 * availableParallelism(),
    // The slowest files first when no earlier run's durations are kept (a fresh clone).
    sequence: { sequencer: SlowestFirst },
    projects: [
      // Pure rules and handlers over memory: no other process, no Java, nothing written. Its files
      // share each worker's modules (isolate: false), which halves its time: none keeps state
      // between files, mocks are restored (SDK clients) or injected, never module mocks.
      {
        extends: true,
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          isolate: false,
          unstubEnvs: true,
        },
      },
      // The checks CI runs once (npm run lint's linters, the docs' links, the reference page),
      // each shown to fail on a small fixture: they do not depend on the Node they run on.
      { extends: true, test: { name: "tools", include: ["tests/tools/**/*.test.ts"] } },
      // The service itself, on DynamoDB Local: storage, the handlers, HTTP through
      // serverless-offline and a browser, the runtime client, hostile input.
      {
        extends: true,
        test: {
          name: "service",
          include: ["tests/{integration,http,fuzz,browser}/**/*.test.ts"],
          globalSetup: ["tests/helpers/global-setup.ts"],
        },
      },
      // The developer's commands (npm start, import, export, smoke, token) and the packaged
      // template: what runs on the developer's machine, not on Lambda.
      {
        extends: true,
        test: {
          name: "commands",
          include: ["tests/{scripts,packaging}/**/*.test.ts"],
          // A file packages up to five templates in its hooks, one at a time under the packaging
          // lock: on a busy machine (two clones testing at once) that outlasts two minutes.
          hookTimeout: 300_000,
          globalSetup: ["tests/helpers/global-setup.ts"],
        },
      },
    ],
  },
});
