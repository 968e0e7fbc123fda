// Test workers: a SIGTERM or SIGHUP (vitest ends a worker so when a run is cut short or over)
// becomes an ordinary exit, so the "exit" hooks of the helpers that start processes (DynamoDB
// Local, serverless-offline, the Lambda runtime client) run and stop them. A signal's default
// action would end the worker without running them. Once per worker: a worker that runs several
// files without isolation (the unit project) runs this before each.
const installed = Symbol.for("blog-post-api.exit-on-signal");
const state = globalThis as { [installed]?: true };
if (!state[installed]) {
  state[installed] = true;
  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => process.exit(128 + (signal === "SIGTERM" ? 15 : 1)));
  }
}
