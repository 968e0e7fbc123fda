// `npm run bench`: runs the sections (bench/*.mjs; docs/performance.md says what each measures),
// prints the table and writes bench/results.json, and stops DynamoDB Local however the run ends.
// Every loop is bounded by a count and a time budget.
import { rm, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import * as esbuild from "esbuild";
import { build, bundleBytes, bundleCap, bundleOptions, handlerNames } from "../scripts/build.mjs";
import { StopError, runWithFlags, stopIfFails } from "../scripts/lib/cli.mjs";
import { startDynamoDbLocal } from "../scripts/lib/dynamodb-local.mjs";
import { requireJava } from "../scripts/lib/setup-checks.mjs";
import { coldStart } from "./cold-start.mjs";
import { LIMITS, benchDir, importFloor, prepareTables, staging } from "./context.mjs";
import { listCache, listCacheLarge } from "./list-cache.mjs";
import { listStream } from "./list-stream.mjs";
import { formatTable, log, ratioRow, runningChildren } from "./util.mjs";
import { warm } from "./warm.mjs";

// The sections, in this order, each kept in results.json under its key.
/** @type {Record<string, import("./context.mjs").Section>} */
const SECTIONS = { cold: coldStart, warm, listCache, listStream, listCacheLarge };

const USAGE = `Usage: npm run bench [-- --help] [-- --only <section>,…]

Builds the handlers, starts its own in-memory DynamoDB Local, seeds it, and measures every API
handler (the token authorizer's cold start included; the events' two, their bundles' size) beside
a floor measured in the same run.
Prints a table of ratios and writes bench/results.json. Takes 2 to 4 minutes of both cores.

  --only <sections>  run only these sections, the bundle rows always; results.json is not
                     written then. Sections: ${Object.keys(SECTIONS).join(", ")}.
                     listCacheLarge (the list cache over 100,000 posts, seeded by the section:
                     about 10 more minutes) runs only when named here

Exit codes: 0 measured; 1 a section failed (one line says which); 2 a bad option, no Java, or
no Lambda runtime client where it cannot be built (listStream needs cmake and a C++ toolchain).`;

/** @type {Promise<{ endpoint: string, stop(): Promise<void> }> | undefined} */
let db;
/** @type {Promise<void> | undefined} */
let cleaning;
/** Ends child processes and DynamoDB Local (even one starting), removes the staging folder. */
const cleanup = () =>
  (cleaning ??= (async () => {
    for (const child of runningChildren) child.kill("SIGKILL");
    await (await db?.catch(() => undefined))?.stop();
    await esbuild.stop(); // it would otherwise go on writing into the folder being removed
    await rm(staging, { recursive: true, force: true });
  })());

let interrupted = false;
for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) {
  process.once(signal, () => {
    interrupted = true;
    log(`${signal}: stopping`);
    void cleanup().finally(() => process.exit(130));
  });
}

await runWithFlags({
  name: "bench",
  usage: USAGE,
  flags: { only: { type: "string" } },
  read: (values) => {
    const only = values.only?.split(",");
    const unknown = only?.find((/** @type {string} */ name) => !(name in SECTIONS));
    if (unknown !== undefined) throw new StopError(`no section named ${unknown}`);
    return only;
  },
  async run(only) {
    // Before anything is built: without Java 17+ the run would fail minutes in.
    stopIfFails(requireJava);
    try {
      log("building bundles");
      const built = await build({ outdir: staging }); // it fails past the bundles' caps
      const entryPoints = { index: `${benchDir}/floor.ts` };
      await esbuild.build({ ...bundleOptions, entryPoints, outdir: `${staging}/floor` });
      const rows = handlerNames.map((name, i) => {
        const kb = bundleBytes(/** @type {esbuild.Metafile} */ (built[i]?.metafile)) / 1024;
        return ratioRow("bundle size (vs the build's cap)", name, kb, bundleCap(name) / 1024, "KB");
      });
      /** @type {Record<string, any>} */
      const results = {};
      log("starting DynamoDB Local");
      const { endpoint } = await (db = startDynamoDbLocal());
      const floor = await importFloor(endpoint);
      await prepareTables(endpoint, floor);
      for (const [key, section] of Object.entries(SECTIONS)) {
        if (only ? !only.includes(key) : section.optIn) continue;
        log(section.title);
        results[key] = await section.measure({ endpoint, floor });
      }
      floor.destroy();
      await cleanup(); // stops DynamoDB Local and waits for it to exit
      for (const [key, result] of Object.entries(results)) {
        rows.push(...(SECTIONS[key]?.rows(result, results) ?? []));
      }
      const wallSeconds = performance.now() / 1000; // since the process started
      const wall = `bench wall time ${wallSeconds.toFixed(1)} s; DynamoDB Local stopped.`;
      console.log(`${formatTable(rows)}; ${wall}`);
      if (!only) {
        const about = { date: new Date().toISOString(), node: process.version, wallSeconds };
        const json = { ...about, cpus: availableParallelism(), limits: LIMITS, ...results, rows };
        await writeFile(`${benchDir}/results.json`, `${JSON.stringify(json, null, 2)}\n`);
        console.log("results written to bench/results.json");
      }
      return 0;
    } catch (error) {
      if (interrupted) return 1; // after a signal, the failure is only the section cut short
      throw error;
    } finally {
      await cleanup();
    }
  },
});
// Imported handler bundles keep keep-alive sockets open; the bench is done with them.
process.exit(process.exitCode ?? 1);
