// `npm run bench:import`: `npm run import` of 5,000 posts into a local target (serverless-offline
// over an in-memory DynamoDB Local), beside a floor measured in the same run: the same creates sent
// straight through the API at the same concurrency, once before the import and once after, so
// drift in the machine's speed cancels. Reports posts/s as a ratio to the floor, and the import's
// peak memory beside the size of its source list. Bounded in count and time; everything it starts
// is stopped however it ends.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "../scripts/build.mjs";
import { rssOf, startLocalApi } from "../scripts/lib/offline.mjs";
import { SetupError, requireJava } from "../scripts/lib/setup-checks.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
// Lambda runs Node 22+; the SDK's notice about Node 20 is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const { values } = parseArgs({
  options: {
    posts: { type: "string", default: "5000" },
    concurrency: { type: "string", default: "8" },
  },
});
const COUNT = Number(values.posts);
const CONCURRENCY = Number(values.concurrency);
/** Every phase gives up after this long; the whole run stays under a few minutes. */
const PHASE_LIMIT_MS = 180_000;
/** The import's goal: at least this fraction of the floor's rate. */
const RATE_GOAL = 0.8;

/** A post of about 500 bytes, as a blog's would be at the small end. */
const postAt = (/** @type {number} */ id) => ({
  id,
  title: `Imported post ${id}`,
  content: `Body of post ${id}. `.repeat(25),
  created_at: new Date(Date.UTC(2024, 0, 1) + id * 60_000).toISOString(),
  updated_at: new Date(Date.UTC(2024, 0, 2) + id * 60_000).toISOString(),
});

/** Sends `count` creates with ids from `firstId` at `concurrency`; returns posts per second. */
async function floorRate(/** @type {string} */ baseUrl, /** @type {number} */ firstId) {
  let next = 0;
  const deadline = Date.now() + PHASE_LIMIT_MS;
  const started = performance.now();
  const lane = async () => {
    while (next < COUNT) {
      if (Date.now() > deadline) throw new Error("floor: over its time limit");
      const response = await fetch(`${baseUrl}/api/post`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(postAt(firstId + next++)),
      });
      await response.arrayBuffer();
      if (response.status !== 201) throw new Error(`floor: create answered ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return COUNT / ((performance.now() - started) / 1000);
}

/** Runs `node args…` to its end, sampling its resident memory; returns its time and peak RSS. */
function runMeasured(/** @type {string[]} */ args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    let peak = 0;
    const sample = setInterval(() => {
      if (child.pid)
        rssOf(child.pid).then(
          (rss) => (peak = Math.max(peak, rss)),
          () => undefined,
        );
    }, 50);
    const limit = setTimeout(() => child.kill("SIGKILL"), PHASE_LIMIT_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearInterval(sample);
      clearTimeout(limit);
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0)
        reject(new Error(`${args.join(" ")} exited ${code}:\n${output.slice(-2000)}`));
      else resolve({ seconds, peak, output });
    });
  });
}

async function main() {
  requireJava();
  await build();
  const work = await mkdtemp(join(tmpdir(), "bench-import-"));
  const api = await startLocalApi("bench-import");
  try {
    const source = join(work, "posts.json");
    const file = {
      source: "bench",
      exported_at: new Date().toISOString(),
      posts: Array.from({ length: COUNT }, (_, i) => postAt(i + 1)),
    };
    const text = JSON.stringify(file);
    await writeFile(source, text);
    // A bare Node's memory, to tell the import's own share from the runtime's.
    const bare = /** @type {{ peak: number }} */ (
      await runMeasured(["-e", "setTimeout(() => {}, 500)"])
    );

    console.error(`floor: ${COUNT} creates at ${CONCURRENCY} connections…`);
    const before = await floorRate(api.baseUrl, 1_000_001);
    console.error(`import: ${COUNT} posts at --concurrency ${CONCURRENCY}…`);
    const imported = /** @type {{ seconds: number, peak: number, output: string }} */ (
      await runMeasured([
        "scripts/import.mjs",
        ...["--from", source, "--to", api.baseUrl, "--concurrency", String(CONCURRENCY)],
      ])
    );
    if (!imported.output.includes(`verified ${COUNT} of ${COUNT}`)) {
      throw new Error(`import did not verify every post:\n${imported.output.slice(-2000)}`);
    }
    console.error("floor again…");
    const after = await floorRate(api.baseUrl, 2_000_001);
    // Peak RSS is mostly the heap V8 lets grow before it collects; a capped heap shows what the
    // import holds: the same import (other ids) must finish in a heap of 8x the source list.
    const capMb = Math.max(16, Math.ceil((8 * Buffer.byteLength(text)) / 2 ** 20));
    const capped = {
      ...file,
      posts: file.posts.map((post) => ({ ...post, id: post.id + 3_000_000 })),
    };
    const cappedSource = join(work, "capped.json");
    await writeFile(cappedSource, JSON.stringify(capped));
    console.error(`import again, in a heap capped at ${capMb} MB…`);
    const inCap = /** @type {{ seconds: number, peak: number, output: string }} */ (
      await runMeasured([
        `--max-old-space-size=${capMb}`,
        "scripts/import.mjs",
        ...["--from", cappedSource, "--to", api.baseUrl, "--concurrency", String(CONCURRENCY)],
      ])
    );
    const cappedOk = inCap.output.includes(`verified ${COUNT} of ${COUNT}`);

    const floor = (before + after) / 2;
    const rate = COUNT / imported.seconds;
    const mb = (/** @type {number} */ bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
    const rows = [
      [
        "floor: plain creates through the API",
        `${before.toFixed(0)} and ${after.toFixed(0)} posts/s (mean ${floor.toFixed(0)})`,
      ],
      [
        "npm run import (whole run: read, copy, verify)",
        `${rate.toFixed(0)} posts/s in ${imported.seconds.toFixed(1)} s`,
      ],
      [
        `import / floor (goal ≥ ${RATE_GOAL}×)`,
        `${(rate / floor).toFixed(2)}× ${rate / floor >= RATE_GOAL ? "met" : "NOT met"}`,
      ],
      ["source list (the export file)", mb(Buffer.byteLength(text))],
      [
        "import's peak RSS (V8's default heap)",
        `${mb(imported.peak)} (a bare Node: ${mb(bare.peak)})`,
      ],
      [
        `the same import, heap capped at ${capMb} MB (8× the source list)`,
        cappedOk ? `finished and verified, peak RSS ${mb(inCap.peak)}` : "FAILED",
      ],
    ];
    const width = Math.max(...rows.map(([label]) => (label ?? "").length));
    console.log(
      `\nnpm run bench:import: ${COUNT} posts, concurrency ${CONCURRENCY}, Node ${process.version}`,
    );
    for (const [label, value] of rows) console.log(`${(label ?? "").padEnd(width)}  ${value}`);
    return rate / floor >= RATE_GOAL && cappedOk ? 0 : 1;
  } finally {
    await api.stop();
    await rm(work, { recursive: true, force: true });
  }
}

try {
  process.exitCode = await main();
} catch (error) {
  if (!(error instanceof SetupError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}
