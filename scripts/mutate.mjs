// `npm run mutate [pure|storage]`: StrykerJS over lib/ (stryker.config.mjs), both layers unless
// one is named. It runs on the Lambda runtime's Node, which StrykerJS 10 needs (Node 22+), and
// prints each file's mutation score; the full reports go to reports/mutation/.
import { spawnSync } from "node:child_process";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { installRuntimeNode } from "./runtime-node.mjs";
import { SetupError, requireJava } from "./setup-checks.mjs";

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
let failed = false;
for (const layer of layers) {
  console.log(`\nmutation testing, ${layer} modules, on Node from ${node}`);
  const run = spawnSync(node, [stryker, "run"], {
    cwd: root,
    stdio: "inherit",
    // The runtime's Node first on PATH, so the test processes Stryker starts run on it too.
    env: {
      ...process.env,
      MUTATE_LAYER: layer,
      PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ""}`,
    },
  });
  failed ||= run.status !== 0;
}
process.exit(failed ? 1 : 0);
