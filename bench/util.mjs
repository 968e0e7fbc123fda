// Bench helpers: the log, filler text, statistics, timing, rounds, child processes and the table.
import { spawn } from "node:child_process";
import { once } from "node:events";

export const benchStarted = performance.now();

/** A progress line on stderr, stamped with the seconds since the bench started. */
export function log(/** @type {string} */ message) {
  const seconds = ((performance.now() - benchStarted) / 1000).toFixed(1);
  process.stderr.write(`[bench ${seconds}s] ${message}\n`);
}

/** ASCII text of exactly `length` characters, different for each seed. */
export function filler(/** @type {number} */ seed, /** @type {number} */ length) {
  const words = `post ${seed} lorem ipsum dolor sit amet consectetur adipiscing elit sed do `;
  return words.repeat(Math.ceil(length / words.length)).slice(0, length);
}

export const mb = (/** @type {number} */ bytes) => bytes / (1024 * 1024);

const sorted = (/** @type {number[]} */ values) => [...values].sort((a, b) => a - b);

/** The q-quantile (0..1), nearest-rank; NaN for no values. */
export function quantile(/** @type {number[]} */ values, /** @type {number} */ q) {
  const s = sorted(values);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
}

/** The median (the mean of the middle two for an even count); NaN for no values. */
export function median(/** @type {number[]} */ values) {
  const s = sorted(values);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
}

/** The median of each field over some runs. @template {Record<string, number>} T @param {T[]} runs */
export function medians(runs) {
  const keys = Object.keys(runs[0] ?? {});
  const entries = keys.map((key) => [key, median(runs.map((run) => run[key] ?? NaN))]);
  return /** @type {T} */ (Object.fromEntries(entries));
}

/** The milliseconds `run` takes. */
export async function timed(/** @type {() => Promise<unknown>} */ run) {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/**
 * Calls a handler and returns its body; the bench fails unless it answers `status`.
 * @param {import("./context.mjs").Handler} handler @param {import("./context.mjs").ApiEvent} event
 */
export async function expectStatus(handler, event, status = 200) {
  const { statusCode, body } = await handler(event);
  if (statusCode !== status) {
    throw new Error(
      `${`${event.httpMethod} ${event.resource}`} answered ${statusCode}, not ${status}: ${body}`,
    );
  }
  return body;
}

/**
 * Runs rounds until there were `count` or `budgetMs` has passed. A round calls `task` once per item,
 * starting one item later each round, so that a drift in speed touches every item alike (with two
 * items, they alternate which goes first).
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
 * Runs `node <args>` with exactly `env` (plus PATH and HOME), killed after `timeoutMs`. Returns its
 * first stdout line as JSON, and the milliseconds from just before the spawn to that line and to
 * the exit.
 * @param {string[]} args @param {Record<string, string>} env @param {number} timeoutMs
 */
export async function runNode(args, env, timeoutMs, node = process.execPath) {
  const start = performance.now();
  const { PATH = "", HOME = "/tmp" } = process.env;
  const child = spawn(node, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH, HOME, ...env },
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
    const why = signal ? `signal ${signal}` : `code ${code}`;
    if (code !== 0) throw new Error(`node ${args.join(" ").slice(0, 200)}: ${why}\n${stderr}`);
    return { report: JSON.parse(stdout.split("\n")[0] ?? ""), firstLineMs, exitMs };
  } finally {
    clearTimeout(timer);
    runningChildren.delete(child);
  }
}

/**
 * One line of the table: a measurement beside its floor, their ratio, the target as printed
 * ("<= 1.8x" or ">= 0.5x" on the ratio, "<= 300 KB" on the value, "info" for none) and whether
 * it was met.
 * @typedef {{ metric: string, name: string, value: number, floor: number, unit: string, target: string, ratio: number, met: boolean | undefined }} Row
 */
/** @param {string} metric @param {string} name @param {number} value @param {number} floor @param {string} unit @returns {Row} */
export function ratioRow(metric, name, value, floor, unit, target = "info") {
  const ratio = value / floor;
  const [, op, limit = "", limitUnit] = /^([<>]=) ([\d.]+) ?(.*)$/.exec(target) ?? [];
  const measured = limitUnit === "x" ? ratio : value;
  const met = op === undefined ? undefined : op === "<=" ? measured <= +limit : measured >= +limit;
  return { metric, name, value, floor, unit, target, ratio, met };
}

const number = (/** @type {number} */ n) =>
  !Number.isFinite(n) ? "n/a" : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);

/** The rows as a plain-text table, figures right-aligned. */
export function formatTable(/** @type {Row[]} */ rows) {
  const header = ["metric", "handler", "floor", "ratio", "target", "met?"];
  const all = [header].concat(
    rows.map(({ metric, name, value, floor, unit, ratio, target, met }) => [
      `${metric}: ${name}`,
      `${number(value)} ${unit}`,
      `${number(floor)} ${unit}`,
      `${ratio.toFixed(2)}x`,
      target,
      met === undefined ? "" : met ? "yes" : "NO",
    ]),
  );
  const widths = header.map((_, i) => Math.max(...all.map((cells) => cells[i]?.length ?? 0)));
  const pad = (/** @type {string} */ text, /** @type {number} */ i) =>
    i >= 1 && i <= 3 ? text.padStart(widths[i] ?? 0) : text.padEnd(widths[i] ?? 0);
  const [head = "", ...body] = all.map((cells) => cells.map(pad).join(" | "));
  return [head, widths.map((w) => "-".repeat(w)).join("-|-"), ...body].join("\n");
}
