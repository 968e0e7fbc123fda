import { defineConfig } from "vitest/config";

// The tests mutation testing runs (stryker.config.mjs): MUTATE_LAYER=storage the integration and
// unit tests, anything else the unit tests. HTTP and packaging run bundles in other processes,
// where a mutant is never active; the fuzz suite is too slow per mutant.
const storage = process.env.MUTATE_LAYER === "storage";

export default defineConfig({
  test: storage
    ? {
        testTimeout: 30_000,
        hookTimeout: 120_000,
        // Unit tests too: some storage rules show only on a mocked client (consistent reads).
        include: ["tests/integration/**/*.test.ts", "tests/unit/**/*.test.ts"],
        // The workload runs in other processes, which never see a mutant; the client is not lib/.
        exclude: ["tests/unit/client/**", "tests/integration/workload.test.ts"],
        isolate: false,
        globalSetup: ["tests/helpers/global-setup.ts"],
      }
    : {
        // A mutant that hangs a unit test fails it (killed) instead of waiting out Stryker's
        // timeout and a runner restart; no unit test of lib/ takes a second.
        testTimeout: 2_000,
        include: ["tests/unit/**/*.test.ts"],
        // One process for all of a mutant's files: half the time; each test sets its TZ itself.
        isolate: false,
        // The contract's request test checks openapi.yaml with seconds of generated cases, not the
        // code; the client's tests check client/, not lib/.
        exclude: ["tests/unit/contract-requests.test.ts", "tests/unit/client/**"],
      },
});
