// Cold-start child: a fresh process imports one handler module, answers one event, reports its
// timings (milliseconds since the process started, `performance.timeOrigin`) on stdout and exits.
const started = performance.now();
const [modulePath = "", eventJson = "{}"] = process.argv.slice(2);
const { pathToFileURL } = await import("node:url");
const module = await import(pathToFileURL(modulePath).href);
const imported = performance.now();
/** An API answer's status; an authorizer answers a policy instead. */
const statusOf = (/** @type {any} */ response) =>
  response?.statusCode ?? (response?.policyDocument ? "policy" : undefined);
const response = await module.handler(JSON.parse(eventJson));
const answered = performance.now();
process.stdout.write(
  `${JSON.stringify({ status: statusOf(response), started, imported, answered })}\n`,
);
// Keep-alive sockets would otherwise hold the process open; Lambda freezes it instead.
process.exit(0);
