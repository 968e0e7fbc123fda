// Bench section "bundle size": builds every handler into the staging folder, and beside each the
// smallest bundle of the SDK calls it makes; then the floor bundles the other sections load.
import * as esbuild from "esbuild";
import { build, bundleOptions, handlerNames } from "../scripts/build.mjs";
import { LIMITS, benchDir, kb, root, staging } from "./context.mjs";
import { ratioRow } from "./util.mjs";

/** @typedef {{ bytes: number, withoutPluginsBytes: number, floorBytes: number, topInputs: [string, number][] }} Bundle */

/** The SDK surface each handler needs, for its bundle-size floor. */
const SDK_SURFACE = /** @type {Record<string, string[]>} */ ({
  "create-post": ["PutCommand", "UpdateCommand"],
  "delete-post": ["DeleteCommand"],
  "get-post": ["GetCommand"],
  "list-posts": ["paginateScan"],
  "update-post": ["UpdateCommand"],
});

/** Bytes of a bundle built in memory with the handlers' options and `options`. */
async function bytesOf(/** @type {esbuild.BuildOptions} */ options) {
  const result = await esbuild.build({ ...bundleOptions, ...options, write: false });
  return result.outputFiles.reduce((sum, file) => sum + file.contents.byteLength, 0);
}

/** The 12 packages (SDK submodules apart) that put the most bytes into a bundle. */
function topInputs(/** @type {esbuild.Metafile | undefined} */ metafile) {
  /** @type {Record<string, number>} */
  const byPackage = {};
  for (const output of Object.values(metafile?.outputs ?? {})) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)(?:\/dist-es\/submodules\/([^/]+))?/.exec(
        input,
      );
      const key = match ? `${match[1]}${match[2] ? `/${match[2]}` : ""}` : input;
      byPackage[key] = (byPackage[key] ?? 0) + bytesInOutput;
    }
  }
  return Object.entries(byPackage)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12);
}

/** Builds every handler, measures it beside its floor, and builds the floor bundles. */
export async function buildBundles() {
  const results = await build({ outdir: staging, metafile: true });
  /** @type {Record<string, Bundle>} */
  const bundles = {};
  for (const [index, name] of handlerNames.entries()) {
    const surface = [...new Set(SDK_SURFACE[name] ?? Object.values(SDK_SURFACE).flat())];
    const metafile = results[index]?.metafile;
    bundles[name] = {
      bytes: Object.values(metafile?.outputs ?? {}).reduce((sum, output) => sum + output.bytes, 0),
      // What the SDK's defaults would ship, without the build's plugins.
      withoutPluginsBytes: await bytesOf({
        plugins: [],
        entryPoints: { index: `${root}handlers/${name}.ts` },
        outdir: `${staging}/unplugged-${name}`,
      }),
      floorBytes: await bytesOf({
        stdin: {
          contents:
            `export { DynamoDBClient } from "@aws-sdk/client-dynamodb";\n` +
            `export { DynamoDBDocumentClient, ${surface.join(", ")} } from "@aws-sdk/lib-dynamodb";\n`,
          resolveDir: root,
          loader: "js",
        },
        outdir: `${staging}/floor-${name}`,
      }),
      topInputs: topInputs(metafile),
    };
  }
  for (const entry of ["floor", "sdk-handler"]) {
    await esbuild.build({
      ...bundleOptions,
      entryPoints: { index: `${benchDir}/${entry}.ts` },
      outdir: `${staging}/${entry}`,
    });
  }
  return bundles;
}

/** The table rows: each bundle's size against its floor. */
export function bundleRows(/** @type {Record<string, Bundle>} */ bundles) {
  return Object.entries(bundles).map(([name, b]) =>
    ratioRow({
      metric: "bundle size (vs bare SDK bundle)",
      name,
      value: kb(b.bytes),
      floor: kb(b.floorBytes),
      unit: "KB",
      target: { maxValue: LIMITS.bundleTargetKb },
    }),
  );
}

/** The line under the table: the range of bundle sizes without the build's plugins. */
export function withoutPluginsNote(/** @type {Record<string, Bundle>} */ bundles) {
  const sizes = Object.values(bundles).map((b) => kb(b.withoutPluginsBytes));
  return (
    `(built without scripts/build.mjs's plugins, the bundles would be ` +
    `${Math.min(...sizes).toFixed(0)}-${Math.max(...sizes).toFixed(0)} KB)`
  );
}
