import { defineConfig } from "vitest/config";

// The tests mutation testing runs (stryker.config.mjs): MUTATE_LAYER=storage runs the
// integration layer on DynamoDB Local, anything else the unit layer. The HTTP, packaging and
// fuzz layers are left out: the first two run the built bundles in other processes, where a
// mutant is never active, and the fuzz suite is too slow to run per mutant.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
const storage = process.env.MUTATE_LAYER === "storage";

export default defineConfig({
  test: storage
    ? {
        testTimeout: 30_000,
        hookTimeout: 120_000,
        // The unit tests too: some storage rules can only be asserted there (consistent reads,
        // which DynamoDB Local never needs, through the SDK's client mock; the id allocator).
        include: ["tests/integration/**/*.test.ts", "tests/unit/**/*.test.ts"],
        // Other processes (worker pools, a restarted DynamoDB Local, the contract's linters, its
        // reference page and the client's generator) never see a mutant; the client is not lib/.
        exclude: ["tests/unit/client/**", "tests/integration/workload.test.ts"],
        isolate: false,
        globalSetup: ["tests/helpers/global-setup.ts"],
      }
    : {
        // A mutant that makes a unit test hang then fails that test, which counts it killed;
        // without this it waits out Stryker's own timeout, after which its runner is restarted:
        // seconds each, for the twenty or so mutants that loop or never resolve. No unit test of
        // lib/ takes a second.
        testTimeout: 2_000,
        include: ["tests/unit/**/*.test.ts"],
        // One process for every file a mutant's tests are in, instead of a fresh one per file:
        // the run takes half the time, and each test sets the process state it needs (TZ).
        isolate: false,
        // The contract's request test holds openapi.yaml to the rules, with seconds of generated
        // cases a run, where the rules' own tests hold the code; the client's own tests hold
        // client/, not lib/. tests/tools is never included.
        exclude: ["tests/unit/contract-requests.test.ts", "tests/unit/client/**"],
      },
});
