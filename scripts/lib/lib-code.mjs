// A module of lib/ built for Node as it is for Lambda (esbuild), so a command runs the code the
// functions run rather than a copy of it. The bundle is written under node_modules/.cache, where
// its packages resolve from the project's own node_modules.
import { basename } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as esbuild from "esbuild";

const root = new URL("../../", import.meta.url);

/**
 * The module at `path` (relative to the repository's root), bundled and imported.
 * @param {string} path
 */
export async function loadLib(path) {
  const outfile = fileURLToPath(
    new URL(`node_modules/.cache/blog-post-api/${basename(path).replace(/\.ts$/, "")}.mjs`, root),
  );
  await esbuild.build({
    entryPoints: [fileURLToPath(new URL(path, root))],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    logLevel: "warning",
  });
  return import(`${pathToFileURL(outfile)}?${Date.now()}`);
}
