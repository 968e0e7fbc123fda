// Bench section "cold start": fresh `node` processes, each importing one bundle (or a floor) and
// answering one event; rounds interleave the variants so a drift in speed touches them all alike.
import { handlerNames } from "../scripts/build.mjs";
import {
  COLD_DELETE_BASE,
  LIMITS,
  benchDir,
  handlerCases,
  lambdaEnv,
  log,
  staging,
} from "./context.mjs";
import { bounded, median, ratioRow, runNode } from "./util.mjs";

/** @typedef {{ runs: number, answeredMs: number, importedMs: number, spawnToAnswerMs: number, spawnToExitMs: number }} ColdSummary */

/**
 * Medians per variant: the floors ("floor", "sdk") and every handler.
 * @param {string} endpoint
 * @returns {Promise<{ rounds: number, summary: Record<string, ColdSummary> }>}
 */
export async function measureColdStart(endpoint) {
  const cases = handlerCases("cold", (i) => COLD_DELETE_BASE + i);
  // "floor": an empty handler module; "sdk": the get handler's DynamoDB call, straight through
  // the SDK (bundled the same way), to show what of a cold start is the SDK's.
  const variants = ["floor", "sdk", ...handlerNames];
  /** @type {Record<string, string>} */
  const modules = {
    floor: `${benchDir}/empty-handler.mjs`,
    sdk: `${staging}/sdk-handler/index.mjs`,
  };
  /** @type {Record<string, { answered: number, imported: number, spawnToAnswer: number, spawnToExit: number }[]>} */
  const samples = Object.fromEntries(variants.map((v) => [v, []]));
  const rounds = await bounded(LIMITS.coldRuns, LIMITS.coldBudgetMs, async (round) => {
    for (let k = 0; k < variants.length; k++) {
      const variant = /** @type {string} */ (variants[(round + k) % variants.length]);
      // The floors are asked what the get handler is.
      const spec =
        cases[variant] ?? /** @type {import("./context.mjs").HandlerCase} */ (cases["get-post"]);
      const run = await runNode(
        [
          `${benchDir}/cold-child.mjs`,
          modules[variant] ?? `${staging}/${variant}/index.mjs`,
          JSON.stringify(spec.event(round)),
        ],
        lambdaEnv(endpoint, spec.table),
        LIMITS.childTimeoutMs,
      );
      const report = JSON.parse(run.lines[0] ?? "{}");
      if (report.status !== spec.status) {
        throw new Error(`cold ${variant} answered ${report.status}, not ${spec.status}`);
      }
      const { answered, imported } = report;
      samples[variant]?.push({
        answered,
        imported,
        spawnToAnswer: run.firstLineMs,
        spawnToExit: run.exitMs,
      });
    }
  });
  if (rounds < LIMITS.coldMinRuns) {
    log(`cold start: only ${rounds} rounds within the budget (wanted >= ${LIMITS.coldMinRuns})`);
  }
  const summary = Object.fromEntries(
    Object.entries(samples).map(([variant, runs]) => {
      const of = (/** @type {keyof (typeof runs)[number]} */ key) =>
        median(runs.map((r) => r[key]));
      const [answeredMs, importedMs] = [of("answered"), of("imported")];
      const [spawnToAnswerMs, spawnToExitMs] = [of("spawnToAnswer"), of("spawnToExit")];
      return [
        variant,
        { runs: runs.length, answeredMs, importedMs, spawnToAnswerMs, spawnToExitMs },
      ];
    }),
  );
  return { rounds, summary };
}

/**
 * The table rows: each handler against the empty handler, the bare SDK call against the empty
 * handler, each handler against the bare SDK call, and each handler's wall time from the spawn.
 * @param {{ summary: Record<string, ColdSummary> }} cold
 */
export function coldStartRows({ summary }) {
  const { floor, sdk } = summary;
  /**
   * One row per handler, against `base`.
   * @param {(c: ColdSummary) => string} metric @param {ColdSummary | undefined} base
   * @param {"answeredMs" | "spawnToAnswerMs"} key @param {{ max: number }} [target]
   */
  const perHandler = (metric, base, key, target) =>
    handlerNames.flatMap((name) => {
      const c = summary[name];
      if (!c || !base) return [];
      return [
        ratioRow({ metric: metric(c), name, value: c[key], floor: base[key], unit: "ms", target }),
      ];
    });
  return [
    ...perHandler(
      (c) => `cold start, process start to answer (median of ${c.runs})`,
      floor,
      "answeredMs",
      { max: 1.8 },
    ),
    ...(sdk && floor
      ? [
          ratioRow({
            metric: "cold start, process start to answer",
            name: "bare SDK GetItem (no handler)",
            value: sdk.answeredMs,
            floor: floor.answeredMs,
            unit: "ms",
          }),
        ]
      : []),
    ...perHandler(() => "cold start vs bare SDK GetItem", sdk, "answeredMs"),
    ...perHandler(() => "cold start, spawn to answer (wall)", floor, "spawnToAnswerMs"),
  ];
}
