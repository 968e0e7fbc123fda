// `npm run export`: every post of a service of this API as a file whose timestamps are ISO 8601
// with an offset, so it means the same instants in any zone. See docs/migrating.md.
import { writeFile } from "node:fs/promises";
import { runWithFlags, tokenFlag, urlFlag } from "./lib/cli.mjs";
import { ZonedClock, isoWithOffset } from "./lib/zoned-time.mjs";
import { ambiguousLine, readSource } from "./lib/migration/source.mjs";

const USAGE = `Usage: npm run export -- [options]

Writes every post of a service of this API as {"source", "exported_at", "posts": [...]}, its
timestamps as ISO 8601 with the source zone's offset (or null), for npm run import to read back.

Options:
  --from URL              the service (default http://localhost:$PORT, 3000 when PORT
                          is unset: npm start)
  --from-time-zone ZONE   IANA zone of its YYYY-DD-MM HH:MM:SS timestamps (default UTC)
  --out FILE              where to write (default: standard output)
  --token T               bearer token, for a service whose reads need one (default: $API_TOKEN)
  -h, --help              this text

Exit codes: 0 every post written; 1 some posts could not be (a local time the zone skips), the
others written; 2 nothing written (bad option or zone, an unreachable service, a refused token, a
paused stage), with one line saying why.`;

/** @param {{ from: string, zone: string, out?: string, token?: string }} options */
async function run(options) {
  const source = await readSource(options.from, { zone: options.zone, token: options.token });
  const clock = new ZonedClock(options.zone);
  const iso = (/** @type {number | null} */ instant) =>
    instant === null ? null : isoWithOffset(clock, instant);
  const posts = source.posts.map((post) => ({
    ...post,
    created_at: iso(post.created_at),
    updated_at: iso(post.updated_at),
  }));
  const file = { source: source.source, exported_at: new Date().toISOString(), posts };
  const text = `${JSON.stringify(file, null, 2)}\n`;
  if (options.out) await writeFile(options.out, text);
  else process.stdout.write(text);
  const where = options.out ?? "standard output";
  console.error(`exported ${posts.length} posts from ${source.source} to ${where}`);
  if (source.ambiguous.length > 0) console.error(ambiguousLine(source.ambiguous));
  for (const { id, reason } of source.failed) console.error(`  not exported #${id}: ${reason}`);
  return source.failed.length === 0 ? 0 : 1;
}

await runWithFlags({
  name: "export",
  usage: USAGE,
  flags: {
    from: { type: "string" },
    "from-time-zone": { type: "string", default: "UTC" },
    out: { type: "string" },
    token: { type: "string" },
  },
  read: (values) => ({
    from: urlFlag("from", values.from),
    zone: values["from-time-zone"],
    out: values.out,
    token: tokenFlag(values),
  }),
  run,
});
