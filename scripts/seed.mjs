// `npm run seed`: posts a few sample posts to the running service (`npm start`) through the API's
// client. Each has its own Idempotency-Key, so seeding twice within a day does not duplicate them.
import { connect, reasonOf, using } from "./lib/api.mjs";
import { runWithFlags, tokenFlag, urlFlag } from "./lib/cli.mjs";

const USAGE = `Usage: npm run seed -- [options]

Creates four sample posts on a running service of this API, one line per post. Each has its own
Idempotency-Key, so a second run within a day writes nothing new and says so.

Options:
  --url URL    the service (default $API_URL, else http://localhost:$PORT, 3000 when PORT is
               unset: npm start)
  --token T    a bearer token, for a service whose writes need one (default $API_TOKEN)
  -h, --help   this text

Exit codes: 0 every sample is there; 1 one was refused; 2 the service cannot be reached, refused
the token or is paused (its spending limit reached), with one line saying why.`;

const samples = /** @type {const} */ ([
  ["Hello, world", "The first post on this blog."],
  ["Timestamps, day first", "Dates read YYYY-DD-MM HH:MM:SS: the day comes before the month."],
  ["Partial updates", "PUT /api/post/<id> changes only the fields you send."],
  ["Retries are safe", "Send an Idempotency-Key with POST and a retry never makes a second post."],
]).map(([title, content]) => ({ title, content }));

/** @param {{ url: string, token?: string }} options */
async function run({ url, token }) {
  const service = await connect(url, { name: "The service", token, attempts: 1 });
  const list = await using(service, (blog) => blog.listPosts());
  const before = new Set(list.notModified ? [] : list.posts.map((post) => post.id));
  let [refused, written] = [0, 0];
  for (const [index, sample] of samples.entries()) {
    const idempotencyKey = `seed-sample-${index + 1}`;
    try {
      const { post } = await using(service, (blog) => blog.createPost(sample, { idempotencyKey }));
      const again = before.has(post.id);
      written += again ? 0 : 1;
      console.log(`201 ${JSON.stringify(post)}${again ? " (already there)" : ""}`);
    } catch (error) {
      console.log(reasonOf(error));
      refused++;
    }
  }
  if (written + refused === 0) console.log("Nothing new written: the samples were there.");
  return refused === 0 ? 0 : 1;
}

await runWithFlags({
  name: "seed",
  usage: USAGE,
  flags: { url: { type: "string" }, token: { type: "string" } },
  read: (values) => ({
    url: urlFlag("url", values.url ?? (process.env.API_URL || undefined)),
    token: tokenFlag(values),
  }),
  run,
});
