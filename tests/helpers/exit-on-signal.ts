// A worker's SIGTERM or SIGHUP becomes an ordinary exit, so the "exit" hooks that stop the
// processes tests started still run. Once per worker: unisolated workers run this before each file.
const installed = Symbol.for("blog-post-api.exit-on-signal");
const state = globalThis as { [installed]?: true };
if (!state[installed]) {
  state[installed] = true;
  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => process.exit(128 + (signal === "SIGTERM" ? 15 : 1)));
  }
}
