// `npm run mutate [pure|storage]`: StrykerJS over lib/ (stryker.config.mjs), both layers unless
// one is named. It runs on the Lambda runtime's Node, which StrykerJS 10 needs (Node 22+), and
// prints each file's mutation score; the full reports go to reports/mutation/.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { installRuntimeNode } from "./runtime-node.mjs";
import { StopError, runWithFlags, stopIfFails } from "./lib/cli.mjs";
import { requireJava } from "./lib/setup-checks.mjs";

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
const strykerRun = [join(root, "node_modules/@stryker-mutator/core/bin/stryker.js"), "run"];

/**
 * Stryker's process group while a layer runs, ended when the layer is done or this script stops:
 * its test runners, their test processes and their DynamoDB Local would otherwise outlive it.
 */
let group = 0;
const endGroup = () => {
  try {
    if (group) process.kill(-group, "SIGKILL");
  } catch {
    // The group has already gone.
  }
};
process.on("exit", endGroup);
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => process.exit(130));

await runWithFlags({
  name: "mutate",
  usage: USAGE,
  positionals: true,
  read(_values, asked) {
    const unknown = asked.filter((layer) => !LAYERS.includes(layer)).join(", ");
    if (unknown)
      throw new StopError(`unknown layer ${unknown}: name pure, storage or neither (both)`);
    return asked.length > 0 ? asked : LAYERS;
  },
  async run(layers) {
    if (layers.includes("storage")) stopIfFails(requireJava);
    const node = installRuntimeNode();
    // The runtime's Node first on PATH, so the test processes Stryker starts run on it too.
    const PATH = `${dirname(node)}${delimiter}${process.env.PATH ?? ""}`;
    let failed = false;
    for (const layer of layers) {
      console.log(`\nmutation testing, ${layer} modules, on Node from ${node}`);
      const env = { ...process.env, MUTATE_LAYER: layer, PATH };
      const child = spawn(node, strykerRun, { cwd: root, stdio: "inherit", detached: true, env });
      group = child.pid ?? 0;
      const [code] = await once(child, "exit");
      endGroup();
      group = 0; // ended: its id may be another group's by the time this process exits
      failed ||= code !== 0;
    }
    return failed ? 1 : 0;
  },
});
