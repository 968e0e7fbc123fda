// The order test files start in when vitest has no durations from an earlier run (a fresh clone,
// as in CI): the slowest known files first, so the run does not end on one long file alone while
// the other workers idle. With an earlier run's durations, vitest's own order (longest first)
// stands; without, it orders by file size, which started the fuzz and warm-instance files last.
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The files that take longest, slowest first (each alone, on 2 cores: from 35 s down to 10 s). */
const SLOWEST = [
  "tests/fuzz/hostile-input.test.ts",
  "tests/scripts/import-export.test.ts",
  "tests/scripts/setup-errors.test.ts",
  "tests/http/warm-instances.test.ts",
  "tests/packaging/security.test.ts",
  "tests/integration/deadline.test.ts",
  "tests/scripts/smoke.test.ts",
  "tests/integration/list-stream.test.ts",
  "tests/integration/init-work.test.ts",
  "tests/integration/sdk-retries.test.ts",
  "tests/integration/storage-failure.test.ts",
  "tests/integration/idempotency.test.ts",
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
    // Within each project, in the order vitest gave the projects; a stable sort keeps the rest.
    const projects = [...new Set(ordered.map((file) => file.project.name))];
    return projects.flatMap((name) =>
      ordered.filter((file) => file.project.name === name).sort((a, b) => rank(a) - rank(b)),
    );
  }
}
