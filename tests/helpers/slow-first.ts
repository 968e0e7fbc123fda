// Without an earlier run's durations (a fresh clone, as in CI), start the slowest known files
// first, so the run does not end on one long file alone; with them, vitest's order stands.
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The files that take longest, slowest first (about 100 s down to 20 s in a run on 2 cores). */
const SLOWEST = [
  "tests/scripts/start-spend.test.ts",
  "tests/scripts/import-export.test.ts",
  "tests/scripts/cost.test.ts",
  "tests/scripts/start-events.test.ts",
  "tests/packaging/security.test.ts",
  "tests/scripts/smoke.test.ts",
  "tests/integration/storage-failure.test.ts",
  "tests/scripts/setup-errors.test.ts",
  "tests/http/events.test.ts",
  "tests/packaging/cloudformation-spec.test.ts",
  "tests/http/api.test.ts",
  "tests/fuzz/hostile-input.test.ts",
  "tests/scripts/test-cleanup.test.ts",
  "tests/integration/list-stream.test.ts",
  "tests/http/warm-instances.test.ts",
  "tests/packaging/events.test.ts",
];

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    if (ordered.every((file) => this.ctx.cache.getTestSpecificationResult(file))) return ordered;
    const rank = (file: TestSpecification) => {
      const at = SLOWEST.findIndex((path) => file.moduleId.endsWith(path));
      return at === -1 ? SLOWEST.length : at;
    };
    // Across projects; a stable sort keeps vitest's order for the rest.
    return [...ordered].sort((a, b) => rank(a) - rank(b));
  }
}
