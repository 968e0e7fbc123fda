// Bench helpers: the log, statistics, timing, rounds, child processes and the table.
import { execFile } from "node:child_process";
import { promisify } from "node:util";

/** A progress line on stderr, stamped with the seconds since the bench started. */
export function log(/** @type {string} */ message) {
  process.stderr.write(`[bench ${(performance.now() / 1000).toFixed(1)}s] ${message}\n`);
}

/** The median (the mean of the middle two for an even count); NaN for no values. */
export function median(/** @type {number[]} */ values) {
  const [s, mid] = [values.toSorted((a, b) => a - b), values.length >> 1];
  return s.length % 2 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
}

/** The milliseconds `run` takes. */
export async function timed(/** @type {() => Promise<unknown>} */ run) {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/**
 * Runs rounds until there were `count` or `budgetMs` has passed; each calls `task` once per item,
 * starting one item later each round, so a drift in speed touches every item alike.
 * @template T @param {number} count @param {number} budgetMs @param {T[]} items
 * @param {(item: T, round: number) => Promise<void>} task @returns {Promise<number>} rounds run
 */
export async function rounds(count, budgetMs, items, task) {
  const deadline = performance.now() + budgetMs;
  let round = 0;
  for (; round < count && performance.now() < deadline; round++) {
    const turn = round % items.length;
    for (const item of [...items.slice(turn), ...items.slice(0, turn)]) await task(item, round);
  }
  return round;
}

/** Child processes still running, so an interrupted bench can end them. */
export const runningChildren = new Set();

/**
 * Runs `<node> <args>` with exactly `env` (plus PATH and HOME), killed after `timeoutMs`; returns
 * its first stdout line as JSON.
 * @param {string[]} args @param {Record<string, string>} env @param {number} timeoutMs
 * @param {string} node the Node binary: the functions' runtime's, for what Lambda would run
 */
export async function runNode(args, env, timeoutMs, node) {
  const { PATH = "", HOME = "/tmp" } = process.env;
  const options = { env: { PATH, HOME, ...env }, timeout: timeoutMs };
  const child = promisify(execFile)(node, args, { ...options, killSignal: "SIGKILL" });
  runningChildren.add(child.child);
  try {
    return JSON.parse((await child).stdout.split("\n")[0] ?? "");
  } catch (error) {
    const { signal, code, stderr = "" } = /** @type {any} */ (error);
    const how = `node ${args.join(" ").slice(0, 200)}: ${signal ?? `code ${code}`}`;
    throw new Error(`${how}\n${String(stderr).slice(-8_192)}`);
  } finally {
    runningChildren.delete(child.child);
  }
}

/**
 * A line of the table: a measurement beside its floor, their ratio, the target as printed (an
 * upper bound on the ratio, "<= 1.8x", or "info" for none), and whether it was met.
 * @typedef {{ metric: string, name: string, value: number, floor: number, unit: string, target: string, ratio: number, met: boolean | undefined }} Row
 * @param {string} metric @param {string} name @param {number} value @param {number} floor
 * @param {string} unit @returns {Row}
 */
export function ratioRow(metric, name, value, floor, unit, target = "info") {
  const ratio = value / floor;
  const limit = /^<= ([\d.]+)x$/.exec(target)?.[1];
  const met = limit === undefined ? undefined : ratio <= Number(limit);
  return { metric, name, value, floor, unit, target, ratio, met };
}

const number = (/** @type {number} */ n) =>
  !Number.isFinite(n) ? "n/a" : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);

/** The rows as a plain-text table, figures right-aligned, and how many targets were met. */
export function formatTable(/** @type {Row[]} */ rows) {
  const head = ["metric", "handler", "floor", "ratio", "target", "met?"];
  const cells = rows.map((r) => [
    `${r.metric}: ${r.name}`,
    `${number(r.value)} ${r.unit}`,
    `${number(r.floor)} ${r.unit}`,
    `${r.ratio.toFixed(2)}x`,
    r.target,
    r.met === undefined ? "" : r.met ? "yes" : "NO",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]?.length ?? 0)));
  const line = (/** @type {string[]} */ row) =>
    widths.map((w, i) => (i >= 1 && i <= 3 ? row[i]?.padStart(w) : row[i]?.padEnd(w))).join(" | ");
  const targets = rows.filter((r) => r.met !== undefined);
  const met = `${targets.filter((r) => r.met).length}/${targets.length} targets met`;
  const rule = widths.map((w) => "-".repeat(w)).join("-|-");
  return [line(head), rule, ...cells.map(line), "", met].join("\n");
}
