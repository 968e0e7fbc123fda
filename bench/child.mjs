// Cold-start child: a fresh process imports one bundle and answers one event through its handler,
// then reports on stdout its status and timings (ms since the process started) and exits.
//   node bench/child.mjs <bundle> <event JSON>
import { Writable } from "node:stream";
import { pathToFileURL } from "node:url";

// The Lambda runtime's streaming global, as it stands before a handler loads, so that the list
// streams as it does on Lambda (into a sink that keeps nothing); the other bundles ignore it.
let streamedStatus = 0;
/** @type {import("../lib/http/stream.js").LambdaStreaming} */
const awslambda = {
  streamifyResponse: (handler) => async (/** @type {any} */ event) => {
    const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
    await handler(event, sink, { getRemainingTimeInMillis: () => 180_000 });
    return { statusCode: streamedStatus };
  },
  HttpResponseStream: {
    from: (stream, prelude) => ((streamedStatus = prelude.statusCode), stream),
  },
};
Object.assign(globalThis, { awslambda });

const [modulePath = "", request = "{}"] = process.argv.slice(2);
const started = performance.now();
const module = await import(pathToFileURL(modulePath).href);
const imported = performance.now();
const result = await module.handler(JSON.parse(request));
const answered = performance.now();
// An API answer's status; an authorizer answers a policy instead.
const status = result?.statusCode ?? (result?.policyDocument ? "policy" : undefined);
// `answered` counts from the process's start, so it includes Node's own boot.
const timings = { answered, init: imported - started, first: answered - imported };
process.stdout.write(`${JSON.stringify({ status, ...timings, whole: answered - started })}\n`);
// Keep-alive sockets would otherwise hold the process open; Lambda freezes it instead.
process.exit(0);
