// Bench child: a fresh process imports one bundle and answers one event through its handler (or,
// given `scan`, lists TABLE_NAME as a bare paginated Scan through the floor bundle), then reports
// on stdout its timings (ms since the process started) and exits. Run with --expose-gc, it also
// reports its memory: the peak growth of RSS and heap, and what is still reachable after a GC.
//   node [--expose-gc] bench/child.mjs <bundle> <event JSON | scan>
import { pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";

const [modulePath = "", request = "{}"] = process.argv.slice(2);
const { AWS_ENDPOINT_URL_DYNAMODB: endpoint, AWS_REGION: region, TABLE_NAME: table } = process.env;
const gc = /** @type {(() => void) | undefined} */ (globalThis.gc);
/** Heap in use by JavaScript plus memory held outside it (response buffers). */
const heapNow = () => {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external + usage.arrayBuffers;
};
gc?.();
gc?.();
const rssBefore = process.memoryUsage.rss();
const maxRssBefore = process.resourceUsage().maxRSS * 1024;
const heapBefore = heapNow();
let [rssPeak, heapPeak] = [rssBefore, heapBefore];
const sample = () => {
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  heapPeak = Math.max(heapPeak, heapNow());
};
const sampler = gc && setInterval(sample, 2);

const started = performance.now();
const module = await import(pathToFileURL(modulePath).href);
const imported = performance.now();
const result = await (request === "scan"
  ? module.createFloor({ endpoint, region }).list(table)
  : module.handler(JSON.parse(request)));
const answered = performance.now();
const timings = { init: imported - started, first: answered - imported, whole: answered - started };
// An API answer's status; an authorizer answers a policy instead.
const status = result?.statusCode ?? (result?.policyDocument ? "policy" : undefined);
/** @type {Record<string, unknown>} */
let memory = {};
if (gc) {
  sample();
  clearInterval(sampler);
  // The kernel's high-water mark catches a peak between samples, when it is above the old one.
  const maxRssAfter = process.resourceUsage().maxRSS * 1024;
  if (maxRssAfter > maxRssBefore) rssPeak = Math.max(rssPeak, maxRssAfter);
  // What is still reachable once the garbage is gone: the response, or the scanned items. Buffers
  // outside the heap are freed by finalizers, a little after the collection that finds them dead.
  gc();
  await new Promise((resolve) => setTimeout(resolve, 50));
  gc();
  const growth = { rssGrowth: rssPeak - rssBefore, heapGrowth: heapPeak - heapBefore };
  memory = { ...growth, liveGrowth: heapNow() - heapBefore, items: result.length };
  // Posts listed, uncompressed JSON bytes and bytes on the wire, read after the measurement.
  if (request !== "scan") {
    const json = result.isBase64Encoded
      ? gunzipSync(Buffer.from(result.body, "base64")).toString("utf8")
      : result.body;
    const [responseBytes, wireBytes] = [Buffer.byteLength(json), Buffer.byteLength(result.body)];
    memory = { ...memory, items: JSON.parse(json).length, responseBytes, wireBytes };
  }
}
const answeredAt = performance.timeOrigin + answered;
// `answered` counts from the process's start, so it includes Node's own boot.
const report = { status, answered, answeredAt, ...timings, ...memory };
process.stdout.write(`${JSON.stringify(report)}\n`);
// Keep-alive sockets would otherwise hold the process open; Lambda freezes it instead.
process.exit(0);
