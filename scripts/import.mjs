// `npm run import`: copies every post of a service of this API, or of a file, into a service of
// this API with the same ids and instants; resumable by running it again. See docs/migrating.md.
import { StopError, runWithFlags, tokenFlag, urlFlag } from "./lib/cli.mjs";
import { copyPosts, verify } from "./lib/migration/copy.mjs";
import { ambiguousLine, readSource } from "./lib/migration/source.mjs";

const USAGE = `Usage: npm run import -- --from URL|FILE [options]

Copies every post of a service of this API (URL) or of a file into a service of this API, keeping
each post's id, title, content, created_at and updated_at. A post already there and identical is
left alone; one that differs is reported as a conflict and never overwritten. Run the same command
again to finish an interrupted copy.

Options:
  --from URL|FILE          where the posts come from: a service (its base URL, e.g.
                           https://blog.example.com), a file written by npm run export, or a
                           JSON array of posts as the API shows them
  --to URL                 the service to copy into (default http://localhost:$PORT,
                           or 3000 when PORT is unset: npm start)
  --from-time-zone ZONE    IANA zone of the source's YYYY-DD-MM HH:MM:SS timestamps, for a
                           service or a bare array (default UTC)
  --to-time-zone ZONE      IANA zone the target shows its timestamps in, to compare instants
                           (default UTC, as npm start and a default deployment)
  --token T                bearer token for the target's writes (default: $API_TOKEN)
  --concurrency N          creates in flight at once, 1 to 64 (default 8)
  --dry-run                read both sides and print what would be done; write nothing
  -h, --help               this text

Exit codes: 0 every post created or already there, and verified; 1 some posts failed, conflict or
do not verify; 2 the run could not start or was stopped (bad option, file, zone, token, or an
unreachable service), with one line saying why; 130 interrupted.`;

/**
 * The command line's options, checked; a StopError for anything wrong with them.
 * @param {import("./lib/cli.mjs").FlagValues} values
 */
function readOptions(values) {
  if (!values.from) throw new StopError("--from URL|FILE is required (see --help)");
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
    throw new StopError(
      `--concurrency must be a whole number from 1 to 64, not ${values.concurrency}`,
    );
  }
  return {
    from: /** @type {string} */ (values.from),
    fromZone: /** @type {string} */ (values["from-time-zone"]),
    to: urlFlag("to", values.to),
    toZone: /** @type {string} */ (values["to-time-zone"]),
    token: tokenFlag(values),
    concurrency,
    dryRun: /** @type {boolean} */ (values["dry-run"]),
  };
}

/** @param {ReturnType<typeof readOptions>} options */
async function run(options) {
  const source = await readSource(options.from, { zone: options.fromZone });
  const total = source.posts.length + source.failed.length;
  console.error(`${total} posts read from ${source.source}`);
  const { results, target } = await copyPosts(source, options);
  const [created, there, conflicts, failed] = [
    "created",
    "already there",
    "conflict",
    "failed",
  ].map((outcome) => results.filter((result) => result.outcome === outcome));
  console.log(`${options.dryRun ? "would create" : "created"}: ${created?.length}`);
  console.log(`already there: ${there?.length}\nconflicts: ${conflicts?.length}`);
  console.log(`failed: ${failed?.length}\n${ambiguousLine(source.ambiguous)}`);
  const unlanded = [...(conflicts ?? []), ...(failed ?? [])].sort((a, b) => a.id - b.id);
  for (const { outcome, id, reason } of unlanded) console.log(`  ${outcome} #${id}: ${reason}`);
  if (options.dryRun) {
    console.log("dry run: nothing was written");
    return unlanded.length === 0 ? 0 : 1;
  }
  const mismatched = await verify(source, target, options.toZone);
  console.log(`verified ${source.posts.length - mismatched.length} of ${total}`);
  for (const { id, reason } of mismatched) console.log(`  not verified #${id}: ${reason}`);
  if (target.retries > 0) console.error(`(${target.retries} requests retried)`);
  return unlanded.length === 0 && mismatched.length === 0 && source.failed.length === 0 ? 0 : 1;
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
