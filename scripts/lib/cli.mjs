// The one skeleton every command runs in: its flags read strictly, -h/--help, exit codes, one line
// (never a stack trace) when the run cannot go on, and progress on long work.
import { createRequire } from "node:module";
import { parseArgs } from "node:util";

/** A problem that stops the whole run: said in one line, exit code 2 unless told otherwise. */
export class StopError extends Error {
  /** @param {string} message @param {number} [exitCode] */
  constructor(message, exitCode = 2) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Runs `check` (of a setting, of the machine); what it throws stops the run, in one line. */
export function stopIfFails(/** @type {() => any} */ check) {
  try {
    return check();
  } catch (error) {
    throw new StopError(/** @type {Error} */ (error).message);
  }
}

/** Whether `text` is an http(s) URL (rather than a file, say). */
export const isUrl = (/** @type {string} */ text) => /^https?:\/\//i.test(text);

/** A flag that must be an http(s) URL (a StopError if not); unset, `npm start`'s service. */
export function urlFlag(/** @type {string} */ flag, /** @type {string | undefined} */ value) {
  if (value === undefined) return localUrl();
  if (!isUrl(value)) throw new StopError(`--${flag} must be an http(s) URL, not ${value}`);
  return value;
}

/** The bearer token: --token, else $API_TOKEN, else none. */
export const tokenFlag = (/** @type {{ token?: string }} */ values) =>
  values.token ?? (process.env.API_TOKEN || undefined);

/** The service `npm start` serves, on $PORT read as it reads it (3000 by default). */
export function localUrl(env = process.env) {
  const settings = createRequire(import.meta.url)("../../config/settings.cjs");
  return `http://localhost:${stopIfFails(() => settings.readPort("PORT", env)) ?? 3000}`;
}

/** @typedef {Record<string, any>} FlagValues a command line's flags as parseArgs reads them */

/**
 * Runs a command: -h/--help prints its usage only; else its flags are read strictly (a bad one or
 * an unwanted positional is a StopError pointing to --help), `read` checks them and `run` returns
 * the exit code. A failure is one line `name: why`: a StopError's code, else 1 (stack with DEBUG).
 * @template O
 * @param {{
 *   name: string,
 *   usage: string,
 *   flags?: NonNullable<import("node:util").ParseArgsConfig["options"]>,
 *   positionals?: boolean,
 *   read?: (values: FlagValues, positionals: string[]) => O,
 *   run: (options: O) => Promise<number>,
 * }} command
 */
export async function runWithFlags(command, argv = process.argv.slice(2)) {
  const { name, usage, flags, positionals = false, run } = command;
  const read = command.read ?? ((values) => /** @type {O} */ (values));
  const options = { ...flags, help: { type: /** @type {const} */ ("boolean"), short: "h" } };
  try {
    let parsed;
    try {
      parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: positionals });
    } catch (error) {
      throw new StopError(`${/** @type {Error} */ (error).message} (see --help)`);
    }
    if (parsed.values.help) console.log(usage);
    process.exitCode = parsed.values.help ? 0 : await run(read(parsed.values, parsed.positionals));
  } catch (error) {
    process.exitCode = error instanceof StopError ? error.exitCode : 1;
    console.error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    if (process.env.DEBUG && !(error instanceof StopError)) console.error(error);
  }
}

/** Imports `url` (absolute), which needs the project's packages; without them, a StopError. */
export async function importWithPackages(/** @type {string} */ url) {
  try {
    return await import(url);
  } catch (error) {
    const { code, message } = /** @type {NodeJS.ErrnoException} */ (error);
    if (code !== "ERR_MODULE_NOT_FOUND") throw error;
    const missing = /Cannot find package '([^']+)'/.exec(message)?.[1] ?? "a package";
    throw new StopError(`${missing} is not installed: run npm install in this folder first`);
  }
}

/**
 * Progress of `total` items named `what` on stderr (cli-progress): a bar with the time left at a
 * terminal; elsewhere a plain line every few seconds, so a log stays free of control characters.
 * @param {number} total @param {string} what
 * @param {{ stream?: NodeJS.WritableStream & { isTTY?: boolean }, everyMs?: number }} [options]
 */
export function progress(total, what, { stream = process.stderr, everyMs = 5_000 } = {}) {
  const format = `${stream.isTTY ? "[{bar}] " : ""}{value}/{total} ${what}, ETA {eta_formatted}`;
  // Loaded here, not on import: a command's --help and errors work before npm install.
  /** @type {typeof import("cli-progress")} */
  const cliProgress = createRequire(import.meta.url)("cli-progress");
  const bar = new cliProgress.SingleBar(
    { format, stream, noTTYOutput: true, notTTYSchedule: everyMs, barsize: 30, hideCursor: false },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return { tick: (count = 1) => bar.increment(count), end: () => bar.stop() };
}
