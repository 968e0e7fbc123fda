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

/** Whether `text` is an http(s) URL (rather than a file, say). */
export const isUrl = (/** @type {string} */ text) => /^https?:\/\//i.test(text);

/**
 * A flag that must be an http(s) URL: its value, or a StopError naming the flag; unset, the
 * service `npm start` serves on $PORT.
 */
export function urlFlag(/** @type {string} */ flag, /** @type {string | undefined} */ value) {
  if (value === undefined) return localUrl();
  if (!isUrl(value)) throw new StopError(`--${flag} must be an http(s) URL, not ${value}`);
  return value;
}

/** The bearer token: --token, else $API_TOKEN, else none. */
export const tokenFlag = (/** @type {{ token?: string }} */ values) =>
  values.token ?? (process.env.API_TOKEN || undefined);

/** The service `npm start` serves, on $PORT as it does (3000 by default). */
export function localUrl(env = process.env) {
  const port = env.PORT ?? "3000";
  if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
    throw new StopError(`PORT must be a port number from 1 to 65535, not ${JSON.stringify(port)}`);
  }
  return `http://localhost:${port}`;
}

/**
 * A command line's flags as node:util's parseArgs reads them: text, or true for a switch.
 * @typedef {Record<string, any>} FlagValues
 */

/**
 * @template O
 * @typedef {{
 *   name: string,
 *   usage: string,
 *   flags?: NonNullable<import("node:util").ParseArgsConfig["options"]>,
 *   positionals?: boolean,
 *   read?: (values: FlagValues, positionals: string[]) => O,
 *   run: (options: O) => Promise<number>,
 * }} Command
 */

/**
 * Reads a command line: `{ help: true }`, or the flags and positionals. An unknown or malformed
 * flag, or a positional where none is taken, is a StopError that points to --help.
 * @param {Pick<Command<unknown>, "flags" | "positionals">} command
 * @param {string[]} argv
 */
export function readCommandLine({ flags = {}, positionals = false }, argv) {
  const options = { ...flags, help: { type: /** @type {const} */ ("boolean"), short: "h" } };
  try {
    const parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: positionals });
    return { values: /** @type {FlagValues} */ (parsed.values), positionals: parsed.positionals };
  } catch (error) {
    throw new StopError(`${/** @type {Error} */ (error).message} (see --help)`);
  }
}

/**
 * Runs a command: -h/--help prints its usage and does nothing else; otherwise its flags are read
 * strictly, `read` checks them, and `run`'s result is the exit code. Every failure is one line.
 * @template O
 * @param {Command<O>} command
 */
export async function runWithFlags(command, argv = process.argv.slice(2)) {
  const { name, usage, read = (values) => /** @type {O} */ (values), run } = command;
  await runCommand(name, async () => {
    const { values, positionals } = readCommandLine(command, argv);
    if (!values.help) return run(read(values, positionals));
    console.log(usage);
    return 0;
  });
}

/**
 * Runs a command's `main` and sets the exit code: its result; a StopError's code (2 by default)
 * with one line `name: why`; any other failure one line and 1 (its stack only with DEBUG set).
 */
export async function runCommand(
  /** @type {string} */ name,
  /** @type {() => Promise<number>} */ main,
) {
  try {
    process.exitCode = await main();
  } catch (error) {
    process.exitCode = error instanceof StopError ? error.exitCode : 1;
    console.error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    if (process.env.DEBUG && !(error instanceof StopError)) console.error(error);
  }
}

/**
 * Imports a module that needs the project's packages (`url`, absolute); without them, a StopError
 * that says to run `npm install` rather than Node's stack trace.
 */
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
 * Progress of `total` items named `what` on stderr (cli-progress): a bar with the time left,
 * redrawn in place at a terminal; elsewhere a plain line every few seconds, so a log gets a
 * readable trail rather than control characters.
 * @param {number} total
 * @param {string} what
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
