// What the commands share: reading flags, and ending with a meaningful exit code and one line
// (never a stack trace) when the run cannot go on.
import { parseArgs } from "node:util";

/** A problem that stops the whole run: said in one line, exit code 2. */
export class StopError extends Error {}

/**
 * The flags `parse` reads (node:util's parseArgs, strict): an unknown or malformed flag is a
 * StopError that points to --help.
 * @template R
 * @param {() => R} parse
 * @returns {R}
 */
export function readFlags(parse) {
  try {
    return parse();
  } catch (error) {
    throw new StopError(`${/** @type {Error} */ (error).message} (see --help)`);
  }
}

/** Whether `text` is an http(s) URL (rather than a file, say). */
export const isUrl = (/** @type {string} */ text) => /^https?:\/\//i.test(text);

/** A flag that must be an http(s) URL: its value, or a StopError naming the flag. */
export function urlFlag(/** @type {string} */ flag, /** @type {string} */ value) {
  if (!isUrl(value)) throw new StopError(`--${flag} must be an http(s) URL, not ${value}`);
  return value;
}

/** The bearer token: --token, else $API_TOKEN, else none. */
export const tokenFlag = (/** @type {{ token?: string }} */ values) =>
  values.token ?? (process.env.API_TOKEN || undefined);

/**
 * A command line's flags as node:util's parseArgs reads them: text, or true for a switch.
 * @typedef {Record<string, any>} FlagValues
 */

/**
 * @template O
 * @typedef {{
 *   name: string,
 *   usage: string,
 *   flags: NonNullable<import("node:util").ParseArgsConfig["options"]>,
 *   read: (values: FlagValues) => O,
 *   run: (options: O) => Promise<number>,
 * }} Command
 */

/**
 * Runs a command: -h/--help prints its usage; otherwise its flags are read strictly (an unknown
 * one points to --help), `read` checks them, and `run`'s result is the exit code. A StopError
 * anywhere is one line `name: why` and exit code 2.
 * @template O
 * @param {Command<O>} command
 */
export async function runWithFlags(
  { name, usage, flags, read, run },
  argv = process.argv.slice(2),
) {
  await runCommand(name, async () => {
    const options = { ...flags, help: { type: /** @type {const} */ ("boolean"), short: "h" } };
    /** @type {FlagValues} */
    const values = readFlags(() => parseArgs({ args: argv, options, strict: true }).values);
    if (values.help) {
      console.log(usage);
      return 0;
    }
    return run(read(values));
  });
}

/** Runs a command's `main`: its exit code, or 2 and one line `name: why` for a StopError. */
export async function runCommand(
  /** @type {string} */ name,
  /** @type {() => Promise<number>} */ main,
) {
  try {
    process.exitCode = await main();
  } catch (error) {
    if (!(error instanceof StopError)) throw error;
    console.error(`${name}: ${error.message}`);
    process.exitCode = 2;
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
