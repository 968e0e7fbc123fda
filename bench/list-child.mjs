// List child: in a fresh process (run with --expose-gc), one list of the big table, either through
// the list handler bundle or as a bare paginated Scan; reports time and memory on stdout.
//   node --expose-gc bench/list-child.mjs handler <bundle>
//   node --expose-gc bench/list-child.mjs scan <floor bundle> <endpoint> <table>
import { pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";
import { apiEvent } from "../scripts/api-event.mjs";

const [mode, modulePath = "", endpoint = "", table = ""] = process.argv.slice(2);
const gc = /** @type {(() => void) | undefined} */ (globalThis.gc);
if (!gc) throw new Error("run with --expose-gc");

/**
 * What one side measures (`run`), and what it tells afterwards, outside the measurement
 * (`describe`: posts listed, uncompressed JSON bytes, bytes on the wire).
 * @typedef {{ run: () => Promise<unknown>, describe: (result: any) => { items: number, bytes: number, wireBytes: number } }} Side
 */

const module = await import(pathToFileURL(modulePath).href);
/** @type {Side} */
let side;
if (mode === "handler") {
  // 10,000 posts of 1 KB are over Lambda's 6 MB response limit: the handler gzips when asked.
  const event = apiEvent({ method: "GET", headers: { "accept-encoding": "gzip" } });
  side = {
    run: () => module.handler(event),
    describe: (response) => {
      if (response.statusCode !== 200) {
        throw new Error(`list answered ${response.statusCode}: ${response.body}`);
      }
      const json = response.isBase64Encoded
        ? gunzipSync(Buffer.from(response.body, "base64")).toString("utf8")
        : response.body;
      return {
        items: JSON.parse(json).length,
        bytes: Buffer.byteLength(json),
        wireBytes: Buffer.byteLength(response.body),
      };
    },
  };
} else if (mode === "scan") {
  const floor = module.createFloor({ endpoint, region: process.env.AWS_REGION ?? "us-east-1" });
  side = {
    run: () => floor.list(table),
    describe: (items) => ({ items: items.length, bytes: 0, wireBytes: 0 }),
  };
} else {
  throw new Error(`mode must be handler or scan, not ${mode}`);
}

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
const result = await side.run();
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

process.stdout.write(
  `${JSON.stringify({
    ms,
    ...side.describe(result),
    rssGrowth: rssPeak - rssBefore,
    heapGrowth: heapPeak - heapBefore,
    liveGrowth,
  })}\n`,
);
process.exit(0);
