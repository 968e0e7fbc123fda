// Bench helpers: the log, filler text, statistics, rounds, child processes and the results table.
import { spawn } from "node:child_process";
import { once } from "node:events";

/** `performance.now()` when the bench started, for the log and the wall time. */
export const benchStarted = performance.now();

/** Writes a progress line, stamped with the seconds since the bench started, to stderr. */
export function log(/** @type {string} */ message) {
  const seconds = ((performance.now() - benchStarted) / 1000).toFixed(1);
  process.stderr.write(`[bench ${seconds}s] ${message}\n`);
}

/** ASCII text of exactly `length` characters, different for each seed. */
export function filler(/** @type {number} */ seed, /** @type {number} */ length) {
  const words = `post ${seed} lorem ipsum dolor sit amet consectetur adipiscing elit sed do `;
  return words.repeat(Math.ceil(length / words.length)).slice(0, length);
}

const sorted = (/** @type {number[]} */ values) => [...values].sort((a, b) => a - b);

/** The q-quantile (0..1) of some numbers, nearest-rank; NaN when there are none. */
export function quantile(/** @type {number[]} */ values, /** @type {number} */ q) {
  const s = sorted(values);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
}

/** The median of some numbers (mean of the middle two for an even count); NaN when there are none. */
export function median(/** @type {number[]} */ values) {
  const s = sorted(values);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
}

/**
 * The median of each field over some runs.
 * @template {Record<string, number>} T @param {T[]} runs @returns {T}
 */
export function medians(runs) {
  const keys = Object.keys(runs[0] ?? {});
  return /** @type {T} */ (
    Object.fromEntries(keys.map((key) => [key, median(runs.map((run) => run[key] ?? NaN))]))
  );
}

/**
 * Runs rounds until there were `count` or `budgetMs` has passed. A round calls `task` once per item,
 * in turn, starting one item later each round, so that a drift in speed touches every item alike
 * (with two items, they alternate which goes first).
 * @template T @param {number} count @param {number} budgetMs @param {T[]} items
 * @param {(item: T, round: number) => Promise<void>} task @returns {Promise<number>} rounds run
 */
export async function rounds(count, budgetMs, items, task) {
  const deadline = performance.now() + budgetMs;
  let round = 0;
  for (; round < count && performance.now() < deadline; round++) {
    for (let k = 0; k < items.length; k++) {
      await task(/** @type {T} */ (items[(round + k) % items.length]), round);
    }
  }
  return round;
}

/** Child processes still running, so an interrupted bench can end them. */
export const runningChildren = new Set();

/**
 * Runs `node <args>` with exactly `env` (plus PATH and HOME), killing it after `timeoutMs`. Returns
 * its first stdout line as JSON, and the milliseconds from just before the spawn to that line and
 * to the exit. `node` is this process's Node unless another binary is named.
 * @param {string[]} args @param {Record<string, string>} env @param {number} timeoutMs
 */
export async function runNode(args, env, timeoutMs, node = process.execPath) {
  const start = performance.now();
  const child = spawn(node, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
  });
  runningChildren.add(child);
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  let [firstLineMs, stdout, stderr] = [NaN, "", ""];
  child.stdout.setEncoding("utf8").on("data", (/** @type {string} */ chunk) => {
    stdout += chunk;
    if (Number.isNaN(firstLineMs) && stdout.includes("\n")) firstLineMs = performance.now() - start;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr = (stderr + chunk).slice(-8_192)));
  try {
    const [code, signal] = await once(child, "close");
    const exitMs = performance.now() - start;
    if (code !== 0) {
      const why = signal ? `signal ${signal}` : `code ${code}`;
      throw new Error(`node ${args.join(" ").slice(0, 200)} ended with ${why}:\n${stderr}`);
    }
    return { report: JSON.parse(stdout.split("\n")[0] ?? ""), firstLineMs, exitMs };
  } finally {
    clearTimeout(timer);
    runningChildren.delete(child);
  }
}

/**
 * One line of the table: a measurement beside its floor, their ratio, and the target as printed
 * ("<= 1.8x" or ">= 0.5x" on the ratio, "<= 300 KB" on the value, "info" for none) and whether
 * it was met.
 * @typedef {{ metric: string, name: string, value: number, floor: number, unit: string, target: string, ratio: number, met: boolean | undefined }} Row
 */

/**
 * A row comparing a measurement with its floor.
 * @param {Omit<Row, "ratio" | "met" | "target"> & { target?: string }} row @returns {Row}
 */
export function ratioRow({ target = "info", ...row }) {
  const ratio = row.value / row.floor;
  const [, op, limit = "", unit] = /^([<>]=) ([\d.]+) ?(.*)$/.exec(target) ?? [];
  const measured = unit === "x" ? ratio : row.value;
  const met = op === undefined ? undefined : op === "<=" ? measured <= +limit : measured >= +limit;
  return { ...row, target, ratio, met };
}

const number = (/** @type {number} */ n) =>
  !Number.isFinite(n) ? "n/a" : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);

/** The rows as a plain-text table: metric | handler | floor | ratio | target | met?. */
export function formatTable(/** @type {Row[]} */ rows) {
  const header = ["metric", "handler", "floor", "ratio", "target", "met?"];
  const cells = rows.map((row) => [
    `${row.metric}: ${row.name}`,
    `${number(row.value)} ${row.unit}`,
    `${number(row.floor)} ${row.unit}`,
    `${row.ratio.toFixed(2)}x`,
    row.target,
    row.met === undefined ? "" : row.met ? "yes" : "NO",
  ]);
  const all = [header, ...cells];
  const widths = header.map((_, i) => Math.max(...all.map((c) => c[i]?.length ?? 0)));
  // Figures right-aligned, text left-aligned.
  const pad = (/** @type {string} */ text, /** @type {number} */ i) =>
    i >= 1 && i <= 3 ? text.padStart(widths[i] ?? 0) : text.padEnd(widths[i] ?? 0);
  const [head = "", ...body] = all.map((c) => c.map(pad).join(" | "));
  return [head, widths.map((w) => "-".repeat(w)).join("-|-"), ...body].join("\n");
}
