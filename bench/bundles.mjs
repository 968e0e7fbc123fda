// Bench rows "bundle size": builds every handler into the staging folder (scripts/build.mjs, which
// fails past its caps), then the floor bundle the other sections load.
import * as esbuild from "esbuild";
import { BUNDLE_MAX_BYTES, BUNDLE_MAX_BYTES_OF, build, bundleOptions } from "../scripts/build.mjs";
import { handlerNames } from "../scripts/build.mjs";
import { benchDir, staging } from "./context.mjs";
import { ratioRow } from "./util.mjs";

/** Builds every handler and the floor bundle; the table's rows: each bundle's size, in KB. */
export async function buildBundles() {
  const results = await build({ outdir: staging });
  const floor = { entryPoints: { index: `${benchDir}/floor.ts` }, outdir: `${staging}/floor` };
  await esbuild.build({ ...bundleOptions, ...floor });
  return handlerNames.map((name, i) => {
    const outputs = Object.values(results[i]?.metafile?.outputs ?? {});
    const kb = outputs.reduce((sum, output) => sum + output.bytes, 0) / 1024;
    const cap = (BUNDLE_MAX_BYTES_OF[name] ?? BUNDLE_MAX_BYTES) / 1024;
    return ratioRow("bundle size (vs the build's cap)", name, kb, cap, "KB");
  });
}
