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
