// Bench section "bundle size": builds every handler into the staging folder, and beside each the
// smallest bundle of the SDK calls it makes; then the floor bundle the other sections load.
import * as esbuild from "esbuild";
import { build, bundleOptions, handlerNames } from "../scripts/build.mjs";
import { LIMITS, benchDir, root, staging } from "./context.mjs";

/** @typedef {Record<string, { bytes: number, withoutPluginsBytes: number, floorBytes: number }>} Bundles */

/** The SDK surface each handler needs, for its bundle-size floor (the others: all of it). */
const SDK_SURFACE = {
  "create-post": ["PutCommand", "UpdateCommand"],
  "delete-post": ["DeleteCommand"],
  "get-post": ["GetCommand"],
  "list-posts": ["paginateScan"],
  "update-post": ["UpdateCommand"],
};

const kb = (/** @type {number} */ bytes) => bytes / 1024;

/** Bytes of what a build wrote (or would have). */
const outputBytes = (/** @type {esbuild.Metafile | undefined} */ metafile) =>
  Object.values(metafile?.outputs ?? {}).reduce((sum, output) => sum + output.bytes, 0);

/** Bytes of a bundle built in memory with the handlers' options and `options`. */
const bytesOf = async (/** @type {esbuild.BuildOptions} */ options) => {
  const built = await esbuild.build({ ...bundleOptions, ...options, metafile: true, write: false });
  return outputBytes(built.metafile);
};

/** Builds every handler, measures it beside its floor, and builds the floor bundle. */
export async function buildBundles() {
  const results = await build({ outdir: staging });
  /** @type {Bundles} */
  const bundles = {};
  for (const [index, name] of handlerNames.entries()) {
    const own = /** @type {Record<string, string[]>} */ (SDK_SURFACE)[name];
    const surface = [...new Set(own ?? Object.values(SDK_SURFACE).flat())].join(", ");
    const contents =
      `export { DynamoDBClient } from "@aws-sdk/client-dynamodb";\n` +
      `export { DynamoDBDocumentClient, ${surface} } from "@aws-sdk/lib-dynamodb";\n`;
    const entryPoints = { index: `${root}handlers/${name}.ts` };
    const unplugged = { plugins: [], entryPoints, outdir: `${staging}/unplugged-${name}` };
    const stdin = { contents, resolveDir: root, loader: /** @type {const} */ ("js") };
    bundles[name] = {
      bytes: outputBytes(results[index]?.metafile),
      withoutPluginsBytes: await bytesOf(unplugged), // what the SDK's defaults would ship
      floorBytes: await bytesOf({ stdin, outdir: `${staging}/floor-${name}` }),
    };
  }
  const floor = { entryPoints: { index: `${benchDir}/floor.ts` }, outdir: `${staging}/floor` };
  await esbuild.build({ ...bundleOptions, ...floor });
  return bundles;
}

/** The table rows: each bundle's size against its floor. @returns {import("./util.mjs").RowSpec[]} */
export const bundleRows = (/** @type {Bundles} */ bundles) =>
  Object.entries(bundles).map(([name, b]) => {
    const [metric, target] = ["bundle size (vs bare SDK bundle)", `<= ${LIMITS.bundleTargetKb} KB`];
    return [metric, name, kb(b.bytes), kb(b.floorBytes), "KB", target];
  });

/** The line under the table: the range of bundle sizes without the build's plugins. */
export function withoutPluginsNote(/** @type {Bundles} */ bundles) {
  const sizes = Object.values(bundles).map((b) => kb(b.withoutPluginsBytes));
  const range = [Math.min(...sizes), Math.max(...sizes)].map((n) => n.toFixed(0)).join("-");
  return `(built without scripts/build.mjs's plugins, the bundles would be ${range} KB)`;
}
