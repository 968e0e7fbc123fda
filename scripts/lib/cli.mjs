// What the commands share: reading flags, and ending with a
// meaningful exit code and one line (never a stack trace) when the run cannot go on.
import { StopError } from "./migration/api-client.mjs";

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
