// Bench helpers: filler text, statistics, child processes and the results table.
import { spawn } from "node:child_process";

/** ASCII text of exactly `length` characters, different for each seed. */
export function filler(/** @type {number} */ seed, /** @type {number} */ length) {
  const words = `post ${seed} lorem ipsum dolor sit amet consectetur adipiscing elit sed do `;
  return words.repeat(Math.ceil(length / words.length)).slice(0, length);
}

/**
 * The q-quantile (0..1) of some numbers, nearest-rank; NaN when there are none.
 * @param {number[]} values @param {number} q
 */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return /** @type {number} */ (sorted[rank]);
}

/** The median of some numbers (mean of the middle two for an even count); NaN when there are none. */
export function median(/** @type {number[]} */ values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const upper = sorted[mid] ?? NaN;
  return sorted.length % 2 ? upper : ((sorted[mid - 1] ?? NaN) + upper) / 2;
}

/** Child processes still running, so an interrupted bench can end them. */
export const runningChildren = new Set();

/**
 * Runs `node <args>` with exactly `env` (plus PATH and HOME), killing it after `timeoutMs`.
 * Times are milliseconds from just before the spawn: the first stdout line and the exit.
 * @param {string[]} args @param {Record<string, string>} env @param {number} timeoutMs
 * @returns {Promise<{ firstLineMs: number, exitMs: number, lines: string[], stderr: string }>}
 */
export function runNode(args, env, timeoutMs) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    });
    runningChildren.add(child);
    let firstLineMs = NaN;
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.stdout.on("data", (/** @type {Buffer} */ chunk) => {
      stdout += chunk.toString("utf8");
      if (Number.isNaN(firstLineMs) && stdout.includes("\n"))
        firstLineMs = performance.now() - start;
    });
    child.stderr.on("data", (/** @type {Buffer} */ chunk) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-8_192);
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      runningChildren.delete(child);
      const exitMs = performance.now() - start;
      if (code !== 0) {
        const why = signal ? `signal ${signal}` : `code ${code}`;
        reject(new Error(`node ${args.join(" ").slice(0, 200)} ended with ${why}:\n${stderr}`));
        return;
      }
      resolve({ firstLineMs, exitMs, lines: stdout.split("\n").filter(Boolean), stderr });
    });
  });
}

/**
 * Runs `task` up to `count` times or until `budgetMs` has passed, whichever comes first.
 * @param {number} count @param {number} budgetMs @param {(i: number) => Promise<void>} task
 * @returns {Promise<number>} how many runs were made
 */
export async function bounded(count, budgetMs, task) {
  const deadline = performance.now() + budgetMs;
  let i = 0;
  while (i < count && performance.now() < deadline) await task(i++);
  return i;
}

/**
 * @typedef {object} Row
 * @property {string} metric
 * @property {string} name handler (or phase) the row is about
 * @property {number} value the handler's measurement
 * @property {number} floor the baseline's measurement
 * @property {string} unit
 * @property {number | undefined} ratio value / floor (or the compared quantity)
 * @property {string} target e.g. "<= 1.8x"; "info" when there is none
 * @property {boolean | undefined} met
 */

/**
 * A row comparing a measurement with its floor. The target is on the ratio (`max`/`min`, in x) or
 * on the value itself (`maxValue`, in the row's unit).
 * @param {Omit<Row, "ratio" | "met" | "target"> & { target?: { max?: number, min?: number, maxValue?: number } }} row
 * @returns {Row}
 */
export function ratioRow({ target, ...row }) {
  const ratio = row.value / row.floor;
  let text = "info";
  /** @type {boolean | undefined} */
  let met;
  if (target?.max !== undefined) {
    text = `<= ${target.max}x`;
    met = ratio <= target.max;
  } else if (target?.min !== undefined) {
    text = `>= ${target.min}x`;
    met = ratio >= target.min;
  } else if (target?.maxValue !== undefined) {
    text = `<= ${target.maxValue} ${row.unit}`;
    met = row.value <= target.maxValue;
  }
  return { ...row, ratio, target: text, met };
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
    row.ratio === undefined ? "" : `${row.ratio.toFixed(2)}x`,
    row.target,
    row.met === undefined ? "" : row.met ? "yes" : "NO",
  ]);
  const widths = header.map((title, i) =>
    Math.max(title.length, ...cells.map((c) => c[i]?.length ?? 0)),
  );
  const line = (/** @type {string[]} */ values) =>
    values
      .map((value, i) =>
        i >= 1 && i <= 3 ? value.padStart(widths[i] ?? 0) : value.padEnd(widths[i] ?? 0),
      )
      .join(" | ");
  const rule = widths.map((w) => "-".repeat(w)).join("-|-");
  return [line(header), rule, ...cells.map(line)].join("\n");
}
