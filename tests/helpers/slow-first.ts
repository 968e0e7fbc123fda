// The order test files start in when vitest has no durations from an earlier run (a fresh clone,
// as in CI): the slowest known files first, so the run does not end on one long file alone while
// the other workers idle. With an earlier run's durations, vitest's own order (longest first)
// stands; without, it orders by file size, which started the fuzz and warm-instance files last.
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take longest, slowest first (in a whole run on 2 cores, from about 100 s down to
 * 20 s): started first, so that none of them is the run's last minute alone.
 */
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
    const { cache } = this.ctx;
    if (ordered.every((file) => cache.getTestSpecificationResult(file))) return ordered;
    const rank = (file: TestSpecification) => {
      const at = SLOWEST.findIndex((path) => file.moduleId.endsWith(path));
      return at === -1 ? SLOWEST.length : at;
    };
    // Across projects: the slowest files are the commands' and the service's alike. A stable
    // sort keeps vitest's order for the rest.
    return [...ordered].sort((a, b) => rank(a) - rank(b));
  }
}
