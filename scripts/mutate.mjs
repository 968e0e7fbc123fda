// `npm run mutate [pure|storage]`: StrykerJS over lib/ (stryker.config.mjs), both layers unless
// one is named. It runs on the Lambda runtime's Node, which StrykerJS 10 needs (Node 22+), and
// prints each file's mutation score; the full reports go to reports/mutation/.
import { spawn } from "node:child_process";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { installRuntimeNode } from "./runtime-node.mjs";
import { SetupError, requireJava } from "./lib/setup-checks.mjs";

const LAYERS = ["pure", "storage"];
const asked = process.argv.slice(2);
const unknown = asked.filter((layer) => !LAYERS.includes(layer));
if (unknown.length > 0) {
  console.error(`Unknown layer ${unknown.join(", ")}: name pure, storage or neither (both).`);
  process.exit(2);
}
const layers = asked.length > 0 ? asked : LAYERS;
if (layers.includes("storage")) {
  try {
    requireJava();
  } catch (error) {
    console.error(error instanceof SetupError ? error.message : error);
    process.exit(1);
  }
}

const root = fileURLToPath(new URL("..", import.meta.url));
const node = installRuntimeNode();
// The package exports no path to its CLI, so it is named by its place in node_modules.
const stryker = join(root, "node_modules", "@stryker-mutator", "core", "bin", "stryker.js");
/**
 * Runs Stryker for one layer in a process group of its own, and ends that whole group when it
 * is done or this script is stopped: Stryker's test runners, their test processes and the
 * DynamoDB Local each runner starts would otherwise outlive an interrupted run.
 * @param {string} layer
 * @returns {Promise<number | null>} the exit code
 */
function runLayer(layer) {
  const child = spawn(node, [stryker, "run"], {
    cwd: root,
    stdio: "inherit",
    detached: true,
    // The runtime's Node first on PATH, so the test processes Stryker starts run on it too.
    env: {
      ...process.env,
      MUTATE_LAYER: layer,
      PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ""}`,
    },
  });
  const endGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // The group has already gone.
    }
  };
  const stop = () => {
    endGroup();
    process.exit(130);
  };
  process.once("SIGINT", stop).once("SIGTERM", stop);
  return new Promise((resolve) =>
    child.once("exit", (code) => {
      process.off("SIGINT", stop).off("SIGTERM", stop);
      endGroup();
      resolve(code);
    }),
  );
}

let failed = false;
for (const layer of layers) {
  console.log(`\nmutation testing, ${layer} modules, on Node from ${node}`);
  failed ||= (await runLayer(layer)) !== 0;
}
process.exit(failed ? 1 : 0);
