// `npm run import`: copies every post of a service of this API, or of a file, into a service of
// this API with the same ids and instants; resumable by running it again. See docs/migrating.md.
import { StopError, runWithFlags, tokenFlag, urlFlag } from "./lib/cli.mjs";
import { copyPosts, verify } from "./lib/migration/copy.mjs";
import { ambiguousLine, readSource } from "./lib/migration/source.mjs";

const USAGE = `Usage: npm run import -- --from URL|FILE [options]

Copies every post of a service of this API (URL) or of a file into a service of this API, keeping
ids and instants. A post already there and identical is left alone; one that differs is a conflict,
never overwritten. Run the same command again to finish an interrupted copy (docs/migrating.md).

Options:
  --from URL|FILE          a service's base URL, a file npm run export wrote, or a JSON array of
                           posts as the API shows them
  --to URL                 the service to copy into (default http://localhost:$PORT, 3000 when
                           PORT is unset: npm start)
  --from-time-zone ZONE    IANA zone of a service's or array's timestamps (default UTC)
  --to-time-zone ZONE      IANA zone the target shows its timestamps in (default UTC)
  --token T                bearer token for the target's writes (default: $API_TOKEN)
  --concurrency N          creates in flight at once, 1 to 64 (default 8)
  --dry-run                read both sides and print what would be done; write nothing
  -h, --help               this text

Exit codes: 0 every post created or already there, and verified; 1 some posts failed, conflict or
do not verify; 2 the run could not start or was stopped, with one line saying why; 130 interrupted.`;

/** @param {import("./lib/cli.mjs").FlagValues} values */
function readOptions(values) {
  if (!values.from) throw new StopError("--from URL|FILE is required (see --help)");
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
    throw new StopError(
      `--concurrency must be a whole number from 1 to 64, not ${values.concurrency}`,
    );
  }
  const { from, "from-time-zone": fromZone, "to-time-zone": toZone, "dry-run": dryRun } = values;
  const to = urlFlag("to", values.to);
  return { from, fromZone, to, toZone, token: tokenFlag(values), concurrency, dryRun };
}

/** @param {ReturnType<typeof readOptions>} options */
async function run(options) {
  const source = await readSource(options.from, { zone: options.fromZone });
  const total = source.posts.length + source.failed.length;
  console.error(`${total} posts read from ${source.source}`);
  const { results, target } = await copyPosts(source, options);
  const count = (/** @type {string} */ outcome) =>
    results.filter((r) => r.outcome === outcome).length;
  console.log(`${options.dryRun ? "would create" : "created"}: ${count("created")}`);
  console.log(`already there: ${count("already there")}\nconflicts: ${count("conflict")}`);
  console.log(`failed: ${count("failed")}\n${ambiguousLine(source.ambiguous)}`);
  // Conflicts and failures are the results with a reason.
  const unlanded = results.filter((result) => result.reason).sort((a, b) => a.id - b.id);
  for (const { outcome, id, reason } of unlanded) console.log(`  ${outcome} #${id}: ${reason}`);
  if (options.dryRun) {
    console.log("dry run: nothing was written");
    return unlanded.length === 0 ? 0 : 1;
  }
  const mismatched = await verify(source, target, options.toZone);
  console.log(`verified ${source.posts.length - mismatched.length} of ${total}`);
  for (const { id, reason } of mismatched) console.log(`  not verified #${id}: ${reason}`);
  if (target.retries > 0) console.error(`(${target.retries} requests retried)`);
  return unlanded.length === 0 && mismatched.length === 0 ? 0 : 1;
}

process.once("SIGINT", () => {
  console.error("\ninterrupted: run the same command again to finish the copy");
  process.exit(130);
});
await runWithFlags({
  name: "import",
  usage: USAGE,
  flags: {
    from: { type: "string" },
    to: { type: "string" },
    "from-time-zone": { type: "string", default: "UTC" },
    "to-time-zone": { type: "string", default: "UTC" },
    token: { type: "string" },
    concurrency: { type: "string", default: "8" },
    "dry-run": { type: "boolean", default: false },
  },
  read: readOptions,
  run,
});
