// `npm run seed`: posts a few sample posts to the running service (`npm start`). Each sample
// has its own Idempotency-Key, so seeding twice within a day does not duplicate them.
import { StopError, runWithFlags, urlFlag } from "./lib/cli.mjs";

const USAGE = `Usage: npm run seed -- [options]

Creates four sample posts on a running service of this API, one line per post. Each has its own
Idempotency-Key, so a second run within a day writes nothing new and says so.

Options:
  --url URL    the service (default $API_URL, else http://localhost:$PORT, 3000 when PORT is
               unset: npm start)
  -h, --help   this text

Exit codes: 0 every sample is there; 1 one was refused; 2 the service cannot be reached.`;

const samples = [
  { title: "Hello, world", content: "The first post on this blog." },
  {
    title: "Timestamps, day first",
    content: "Dates read YYYY-DD-MM HH:MM:SS: the day comes before the month.",
  },
  { title: "Partial updates", content: "PUT /api/post/<id> changes only the fields you send." },
  {
    title: "Retries are safe",
    content: "Send an Idempotency-Key with POST and a retry never makes a second post.",
  },
];

/** A request to the service; an unreachable one stops the run in one line. */
async function send(/** @type {string} */ url, /** @type {RequestInit} */ init = {}) {
  try {
    return await fetch(url, init);
  } catch {
    throw new StopError(
      `cannot reach ${new URL(url).origin}: start the service first with npm start`,
    );
  }
}

/** @param {string} base */
async function run(base) {
  const listed = await send(`${base}/api/post`);
  /** @type {{ id: number }[]} */
  const posts = /** @type {{ id: number }[]} */ (listed.ok ? await listed.json() : []);
  const before = new Set(posts.map((post) => post.id));
  let refused = 0;
  let written = 0;
  for (const [index, sample] of samples.entries()) {
    const response = await send(`${base}/api/post`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "idempotency-key": `seed-sample-${index + 1}`,
      },
      body: JSON.stringify(sample),
    });
    const body = /** @type {{ id?: number }} */ (await response.json());
    const again = response.status === 201 && before.has(body.id ?? 0);
    console.log(`${response.status} ${JSON.stringify(body)}${again ? " (already there)" : ""}`);
    if (response.status !== 201) refused++;
    else if (!again) written++;
  }
  if (written === 0 && refused === 0) console.log("Nothing new written: the samples were there.");
  return refused === 0 ? 0 : 1;
}

await runWithFlags({
  name: "seed",
  usage: USAGE,
  flags: { url: { type: "string" } },
  read: (values) => urlFlag("url", values.url ?? (process.env.API_URL || undefined)),
  run,
});
