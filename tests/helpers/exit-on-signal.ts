// Test workers: a SIGTERM or SIGHUP (vitest ends a worker so when a run is cut short or over)
// becomes an ordinary exit, so the "exit" hooks of the helpers that start processes (DynamoDB
// Local, serverless-offline, the Lambda runtime client) run and stop them. A signal's default
// action would end the worker without running them.
for (const signal of ["SIGTERM", "SIGHUP"] as const) {
  process.once(signal, () => process.exit(128 + (signal === "SIGTERM" ? 15 : 1)));
}
