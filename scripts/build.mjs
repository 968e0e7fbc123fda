// Build: one minified ES module bundle per handler, AWS SDK included, in dist/<handler>/index.mjs.
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The handler names, from the files in handlers/. */
export const handlerNames = readdirSync(`${root}/handlers`)
  .filter((file) => file.endsWith(".ts"))
  .map((file) => file.slice(0, -3))
  .sort();

/**
 * esbuild options shared by every bundle. The SDK's ES module builds tree-shake better than its
 * CommonJS ones; the banner gives bundled CommonJS code a `require` for Node's built-ins.
 * @type {esbuild.BuildOptions}
 */
export const bundleOptions = {
  bundle: true,
  platform: "node",
  target: "node22",
  format: "esm",
  minify: true,
  mainFields: ["module", "main"],
  outExtension: { ".js": ".mjs" },
  banner: {
    js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);",
  },
  legalComments: "none",
  logLevel: "warning",
};

/**
 * Builds every handler into `outdir`/<name>/index.mjs.
 * @param {{ outdir?: string, metafile?: boolean }} [options]
 */
export async function build({ outdir = `${root}/dist`, metafile = false } = {}) {
  return Promise.all(
    handlerNames.map((name) =>
      esbuild.build({
        ...bundleOptions,
        entryPoints: { index: `${root}/handlers/${name}.ts` },
        outdir: `${outdir}/${name}`,
        metafile,
      }),
    ),
  );
}

/** Rebuilds every handler whenever a source file changes; returns a function that stops watching. */
export async function watch({ outdir = `${root}/dist` } = {}) {
  const contexts = await Promise.all(
    handlerNames.map((name) =>
      esbuild.context({
        ...bundleOptions,
        entryPoints: { index: `${root}/handlers/${name}.ts` },
        outdir: `${outdir}/${name}`,
      }),
    ),
  );
  await Promise.all(contexts.map((context) => context.rebuild()));
  await Promise.all(contexts.map((context) => context.watch()));
  return () => Promise.all(contexts.map((context) => context.dispose()));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await build();
  console.log(`built ${handlerNames.length} handlers into dist/`);
}
