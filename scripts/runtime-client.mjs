// The Lambda Node runtime's own client (aws-lambda-ric), which the runtime-client tests and the
// bench's streamed list run handlers under. Its install compiles curl and aws-lambda-cpp, so it
// needs cmake and a C++ toolchain: it lives in tools/runtime-client/, a package of its own with
// its own lockfile, so that the project's `npm install` needs only Node.
// `node scripts/runtime-client.mjs` installs it if needed and prints its entry point.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { installRuntimeNode } from "./runtime-node.mjs";

const packageDir = fileURLToPath(new URL("../tools/runtime-client", import.meta.url));
const clientDir = `${packageDir}/node_modules/aws-lambda-ric`;

/** The runtime client's entry point, run by the runtime's Node. */
export const runtimeClientPath = `${clientDir}/index.mjs`;

/** The one line that says how to get the client, for a skip or a stop. */
export const RUNTIME_CLIENT_MISSING =
  "The Lambda runtime client is not installed: `node scripts/runtime-client.mjs` builds it " +
  "(it needs cmake and a C++ toolchain)";

/** Whether the client and its compiled part are in place. */
export const runtimeClientInstalled = () =>
  existsSync(runtimeClientPath) && existsSync(`${clientDir}/rapid-client.node`);

/**
 * A build of this lockfile for this Node's ABI and platform, kept per user (as npm keeps its
 * cache) so that another clone on the same machine copies it rather than compiling again.
 */
function cachedBuild(/** @type {string} */ node) {
  const abi = spawnSync(node, ["-p", "process.versions.modules"], { encoding: "utf8" }).stdout;
  const lock = readFileSync(`${packageDir}/package-lock.json`);
  const key = createHash("sha256").update(lock).update(`${abi.trim()} ${process.arch}`);
  const cache = process.env.XDG_CACHE_HOME || `${homedir()}/.cache`;
  return `${cache}/blog-post-api/runtime-client-${key.digest("hex").slice(0, 16)}`;
}

/** Installs the client (`npm ci` in its folder, on the runtime's Node) unless it is there. */
export function installRuntimeClient() {
  if (runtimeClientInstalled()) return runtimeClientPath;
  const node = installRuntimeNode();
  const cached = cachedBuild(node);
  if (existsSync(`${cached}/aws-lambda-ric/rapid-client.node`)) {
    cpSync(cached, `${packageDir}/node_modules`, { recursive: true, verbatimSymlinks: true });
    if (runtimeClientInstalled()) return runtimeClientPath;
  }
  const onPath = (/** @type {string} */ tool) =>
    spawnSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" }).status === 0;
  const missing = ["cmake", "make", "c++"].filter((tool) => !onPath(tool)).join(", ");
  if (process.platform !== "linux" || missing) {
    const lacking = missing ? ` (missing: ${missing})` : "";
    throw new Error(`The Lambda runtime client builds on Linux with cmake, make and c++${lacking}`);
  }
  // Its install scripts are compiled for, and checked against, the Node that runs it.
  const nodeDir = dirname(node);
  const flags = ["--prefix", packageDir, "--no-audit", "--no-fund", "--loglevel=error"];
  const install = spawnSync("npm", ["ci", ...flags], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, PATH: `${nodeDir}${delimiter}${process.env.PATH ?? ""}` },
  });
  if (install.status !== 0 || !runtimeClientInstalled()) {
    throw new Error(`could not install the Lambda runtime client into ${packageDir}`);
  }
  cpSync(`${packageDir}/node_modules`, cached, { recursive: true, verbatimSymlinks: true });
  return runtimeClientPath;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log(installRuntimeClient());
  } catch (error) {
    console.error(`runtime-client: ${/** @type {Error} */ (error).message}`);
    process.exitCode = 1;
  }
}
