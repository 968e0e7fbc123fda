// List child: in a fresh process (run with --expose-gc), one list of the big table, either through
// the list handler bundle or as a bare paginated Scan through the floor bundle; reports time and
// memory on stdout. The table and endpoint come from the Lambda environment it is given. Loading
// the bundle is measured too: the handler's init builds the list (lib/app/runtime.ts), so the
// first list of a new instance is its init and its first invoke together.
//   node --expose-gc bench/list-child.mjs handler|scan <bundle>
import { pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";
import { apiEvent } from "../tests/helpers/api-event.mjs";

const [mode, modulePath = ""] = process.argv.slice(2);
const gc = /** @type {(() => void) | undefined} */ (globalThis.gc);
if (!gc) throw new Error("run with --expose-gc");
if (mode !== "handler" && mode !== "scan") throw new Error(`mode must be handler or scan: ${mode}`);
const { AWS_ENDPOINT_URL_DYNAMODB: endpoint, AWS_REGION: region, TABLE_NAME: table } = process.env;
// 10,000 posts of 1 KB are over Lambda's 6 MB response limit: the handler gzips when asked.
const event = apiEvent({ method: "GET", headers: { "accept-encoding": "gzip" } });

/** Heap in use by JavaScript plus memory held outside it (response buffers). */
const heapNow = () => {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external + usage.arrayBuffers;
};

gc();
gc();
const rssBefore = process.memoryUsage.rss();
const maxRssBefore = process.resourceUsage().maxRSS * 1024;
const heapBefore = heapNow();
let rssPeak = rssBefore;
let heapPeak = heapBefore;
const sample = () => {
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  heapPeak = Math.max(heapPeak, heapNow());
};
const sampler = setInterval(sample, 2);

const started = performance.now();
const module = await import(pathToFileURL(modulePath).href);
const initMs = performance.now() - started;
const floor = mode === "scan" ? module.createFloor({ endpoint, region }) : undefined;
const result = await (floor ? floor.list(table) : module.handler(event));
const ms = performance.now() - started;
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
const liveGrowth = heapNow() - heapBefore;

// Posts listed, uncompressed JSON bytes and bytes on the wire, read after the measurement.
let described = { items: result.length, responseBytes: 0, wireBytes: 0 };
if (!floor) {
  if (result.statusCode !== 200)
    throw new Error(`list answered ${result.statusCode}: ${result.body}`);
  const json = result.isBase64Encoded
    ? gunzipSync(Buffer.from(result.body, "base64")).toString("utf8")
    : result.body;
  const [responseBytes, wireBytes] = [Buffer.byteLength(json), Buffer.byteLength(result.body)];
  described = { items: JSON.parse(json).length, responseBytes, wireBytes };
}
const [rssGrowth, heapGrowth] = [rssPeak - rssBefore, heapPeak - heapBefore];
process.stdout.write(
  `${JSON.stringify({ ms, initMs, ...described, rssGrowth, heapGrowth, liveGrowth })}\n`,
);
process.exit(0);
