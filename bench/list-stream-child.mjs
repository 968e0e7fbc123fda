// List-stream child, run on the Lambda runtime's Node (it imports the TypeScript test harness,
// whose types Node 24 strips): the list bundle started by aws-lambda-ric against a loopback
// Runtime API, one list streamed as API Gateway would receive it, and the runtime's peak memory.
//   node bench/list-stream-child.mjs <bundle folder> <NODE_OPTIONS>   (environment: the function's)
import { apiEvent } from "../tests/helpers/api-event.mjs";

// The harness's source itself, typed through its .js name as the tests import it.
/** @type {typeof import("../tests/helpers/lambda-runtime.js")} */
const { startLambdaRuntime } = await import(
  new URL("../tests/helpers/lambda-runtime.ts", import.meta.url).href
);

const [bundleDir = "", nodeOptions = ""] = process.argv.slice(2);
const env = Object.fromEntries(
  [
    "TABLE_NAME",
    "AWS_ENDPOINT_URL_DYNAMODB",
    "AWS_REGION",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "TZ",
  ].map((name) => [name, process.env[name] ?? ""]),
);
const runtime = await startLambdaRuntime({
  bundleDir,
  env: { ...env, LOG_LEVEL: "silent", NODE_OPTIONS: nodeOptions },
});
try {
  // The first invocation of a new instance: its init (which reads the whole list), then the list.
  const plain = await runtime.invoke(apiEvent({ method: "GET" }), { timeoutMs: 180_000 });
  if (plain.kind !== "streamed" || !plain.complete || plain.prelude?.statusCode !== 200) {
    throw new Error(
      `the list did not stream whole: ${JSON.stringify({ ...plain, raw: undefined, body: undefined })}`,
    );
  }
  const { peakRssBytes } = runtime.memory();
  const posts = JSON.parse(plain.body.toString("utf8")).length;
  const zipped = await runtime.invoke(
    apiEvent({ method: "GET", headers: { "accept-encoding": "gzip" } }),
  );
  const gzipBytes = zipped.kind === "streamed" ? zipped.body.length : NaN;
  process.stdout.write(
    `${JSON.stringify({
      posts,
      jsonBytes: plain.body.length,
      gzipBytes,
      peakRssBytes,
      initMs: runtime.initMs(),
      firstByteMs: plain.firstByteMs,
      totalMs: plain.totalMs,
      gzipTotalMs: zipped.totalMs,
    })}\n`,
  );
} finally {
  await runtime.stop();
}
