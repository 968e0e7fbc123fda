// Bench section "bundle size": builds every handler (into the staging folder, then installed into
// dist/), and beside each the smallest bundle of the SDK calls it makes, and the baseline bundles.
import { copyFile, mkdir, rename, rm, stat } from "node:fs/promises";
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

/** Where a bundle is copied before the rename that installs it, so dist/ never holds half a file. */
const installing = (/** @type {string} */ name) =>
  `${root}dist/${name}/.index.mjs.bench-${process.pid}`;

const outputBytes = (/** @type {esbuild.BuildResult<{ write: false }>} */ result) =>
  result.outputFiles.reduce((sum, file) => sum + file.contents.byteLength, 0);

/** Bytes of the smallest bundle that exports what `name` uses of the SDK. */
async function floorBytes(/** @type {string} */ name) {
  const surface = SDK_SURFACE[name] ?? Object.values(SDK_SURFACE).flat();
  const floor = await esbuild.build({
    ...bundleOptions,
    stdin: {
      contents:
        `export { DynamoDBClient } from "@aws-sdk/client-dynamodb";\n` +
        `export { DynamoDBDocumentClient, ${[...new Set(surface)].join(", ")} } from "@aws-sdk/lib-dynamodb";\n`,
      resolveDir: root,
      loader: "js",
    },
    outdir: `${staging}/floor-${name}`,
    write: false,
  });
  return outputBytes(floor);
}

/** Bytes of the handler built without the build's plugins: what the SDK's defaults would ship. */
async function withoutPluginsBytes(/** @type {string} */ name) {
  const unplugged = await esbuild.build({
    ...bundleOptions,
    plugins: [],
    entryPoints: { index: `${root}handlers/${name}.ts` },
    outdir: `${staging}/unplugged-${name}`,
    write: false,
  });
  return outputBytes(unplugged);
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

/** Builds and installs every handler, measures it beside its floor, and builds the baselines. */
export async function buildBundles() {
  const results = await build({ outdir: staging, metafile: true });
  /** @type {Record<string, Bundle>} */
  const bundles = {};
  for (const [index, name] of handlerNames.entries()) {
    await mkdir(`${root}dist/${name}`, { recursive: true });
    await copyFile(`${staging}/${name}/index.mjs`, installing(name));
    await rename(installing(name), `${root}dist/${name}/index.mjs`);
    bundles[name] = {
      bytes: (await stat(`${root}dist/${name}/index.mjs`)).size,
      withoutPluginsBytes: await withoutPluginsBytes(name),
      floorBytes: await floorBytes(name),
      topInputs: topInputs(results[index]?.metafile),
    };
  }
  for (const entry of ["sdk-direct", "sdk-handler"]) {
    await esbuild.build({
      ...bundleOptions,
      entryPoints: { index: `${benchDir}/${entry}.mjs` },
      outdir: `${staging}/${entry}`,
    });
  }
  return bundles;
}

/** Removes a copy an interrupted install left beside a bundle in dist/. */
export async function removePartialInstalls() {
  await Promise.all(handlerNames.map((name) => rm(installing(name), { force: true })));
}

/** The table rows: each bundle's size against its floor. */
export function bundleRows(/** @type {Record<string, Bundle>} */ bundles) {
  return handlerNames.flatMap((name) => {
    const b = bundles[name];
    if (!b) return [];
    const metric = "bundle size (vs bare SDK bundle)";
    const target = { maxValue: LIMITS.bundleTargetKb };
    return [
      ratioRow({ metric, name, value: kb(b.bytes), floor: kb(b.floorBytes), unit: "KB", target }),
    ];
  });
}

/** The line under the table: the range of bundle sizes without the build's plugins. */
export function withoutPluginsNote(/** @type {Record<string, Bundle>} */ bundles) {
  const sizes = Object.values(bundles).map((b) => kb(b.withoutPluginsBytes));
  return (
    `(built without scripts/build.mjs's plugins, the bundles would be ` +
    `${Math.min(...sizes).toFixed(0)}-${Math.max(...sizes).toFixed(0)} KB)`
  );
}
