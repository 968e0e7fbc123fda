// List-stream child, run on the Lambda runtime's Node (it imports the TypeScript test harness,
// whose types Node 24 strips): the list bundle under aws-lambda-ric, one list streamed, and the
// runtime's peak memory. With an update bundle, a post is retitled once the list's init is done.
//   node bench/list-stream-child.mjs <bundle folder> <NODE_OPTIONS> [<update bundle folder>]
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { apiEvent } from "../tests/helpers/api-event.mjs";

// The harness's source itself, typed through its .js name as the tests import it.
/** @type {typeof import("../tests/helpers/lambda-runtime.js")} */
const { startLambdaRuntime } = await import(
  new URL("../tests/helpers/lambda-runtime.ts", import.meta.url).href
);

const [bundleDir = "", NODE_OPTIONS = "", updateDir] = process.argv.slice(2);
// The function's environment is this process's, as the bench gave it, with the list's Node options.
const env = /** @type {Record<string, string>} */ ({ ...process.env, NODE_OPTIONS });
const runtime = await startLambdaRuntime({ bundleDir, env });
try {
  if (updateDir) {
    for (let i = 0; i < 9_000 && runtime.initMs() === undefined; i++) await sleep(20);
    const { handler } = await import(pathToFileURL(`${updateDir}/index.mjs`).href);
    const title = "retitled before the first list";
    const retitled = await handler(apiEvent({ method: "PUT", postId: 1, body: { title } }));
    if (retitled.statusCode !== 200) throw new Error(`the update answered ${retitled.statusCode}`);
  }
  // The first invocation of a new instance: its init (which reads the whole list), then the list.
  const plain = await runtime.invoke(apiEvent({ method: "GET" }), { timeoutMs: 180_000 });
  if (plain.kind !== "streamed" || !plain.complete || plain.prelude?.statusCode !== 200) {
    const shown = JSON.stringify({ ...plain, raw: undefined, body: undefined });
    throw new Error(`the list did not stream whole: ${shown}`);
  }
  const afterList = runtime.memory().peakRssBytes;
  const gzip = { "accept-encoding": "gzip" };
  const zipped = await runtime.invoke(apiEvent({ method: "GET", headers: gzip }));
  const report = {
    posts: JSON.parse(plain.body.toString("utf8")).length,
    jsonBytes: plain.body.length,
    gzipBytes: zipped.kind === "streamed" ? zipped.body.length : NaN,
    // After a write, the window runs to the gzipped list's end; else the first list's.
    peakRssBytes: updateDir ? runtime.memory().peakRssBytes : afterList,
    firstByteMs: plain.firstByteMs,
    totalMs: plain.totalMs,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
} finally {
  await runtime.stop();
}
