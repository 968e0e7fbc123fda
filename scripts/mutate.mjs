// `npm run mutate [pure|storage]`: StrykerJS over lib/ (stryker.config.mjs), both layers unless
// one is named. It runs on the Lambda runtime's Node, which StrykerJS 10 needs (Node 22+), and
// prints each file's mutation score; the full reports go to reports/mutation/.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { installRuntimeNode } from "./runtime-node.mjs";
import { StopError, runWithFlags } from "./lib/cli.mjs";
import { SetupError, requireJava } from "./lib/setup-checks.mjs";

const LAYERS = ["pure", "storage"];

const USAGE = `Usage: npm run mutate -- [pure] [storage]

Mutation testing of lib/ with StrykerJS (stryker.config.mjs): the pure modules (no DynamoDB), the
storage modules (DynamoDB Local, so Java), or both when neither is named. Runs on the Lambda
runtime's Node, downloaded once; the reports go to reports/mutation/. It takes tens of minutes.

Options:
  -h, --help   this text

Exit codes: 0 every layer's run passed; 1 one did not; 2 a bad layer, or no Java for storage.`;

const root = fileURLToPath(new URL("..", import.meta.url));
// The package exports no path to its CLI, so it is named by its place in node_modules.
const stryker = join(root, "node_modules", "@stryker-mutator", "core", "bin", "stryker.js");

/**
 * Runs Stryker for one layer in a process group of its own, and ends that whole group when it
 * is done or this script is stopped: Stryker's test runners, their test processes and the
 * DynamoDB Local each runner starts would otherwise outlive an interrupted run.
 * @param {string} node the runtime's Node
 * @param {string} layer
 * @returns {Promise<number | null>} the exit code
 */
async function runLayer(node, layer) {
  // The runtime's Node first on PATH, so the test processes Stryker starts run on it too.
  const PATH = `${dirname(node)}${delimiter}${process.env.PATH ?? ""}`;
  const env = { ...process.env, MUTATE_LAYER: layer, PATH };
  const child = spawn(node, [stryker, "run"], { cwd: root, stdio: "inherit", detached: true, env });
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
  const [code] = await once(child, "exit");
  process.off("SIGINT", stop).off("SIGTERM", stop);
  endGroup();
  return code;
}

await runWithFlags({
  name: "mutate",
  usage: USAGE,
  positionals: true,
  read(_values, asked) {
    const unknown = asked.filter((layer) => !LAYERS.includes(layer));
    if (unknown.length > 0) {
      throw new StopError(
        `unknown layer ${unknown.join(", ")}: name pure, storage or neither (both)`,
      );
    }
    return asked.length > 0 ? asked : LAYERS;
  },
  async run(layers) {
    try {
      if (layers.includes("storage")) requireJava();
    } catch (error) {
      throw new StopError(error instanceof SetupError ? error.message : String(error));
    }
    const node = installRuntimeNode();
    let failed = false;
    for (const layer of layers) {
      console.log(`\nmutation testing, ${layer} modules, on Node from ${node}`);
      failed ||= (await runLayer(node, layer)) !== 0;
    }
    return failed ? 1 : 0;
  },
});
