// Ceilings on rate and cost, on by default: the REST API stage's throttle, the tables' maximum
// on-demand throughput, and optional reserved concurrency per function. Read by serverless.yml.
// Each default is far above what a small blog needs and far below an unbounded bill.
const { API_FUNCTIONS } = require("./names.cjs");

const DEFAULTS = {
  API_RATE_LIMIT: 100, // requests a second, steady
  API_BURST_LIMIT: 200, // requests at once
  TABLE_MAX_READ_UNITS: 1000, // read request units a second, per table
  TABLE_MAX_WRITE_UNITS: 200, // write request units a second, per table
};

/** A positive integer setting, or its default when unset; throws on anything else. */
function positiveInteger(name, env = process.env) {
  const raw = (env[name] ?? "").trim();
  if (raw === "") return DEFAULTS[name];
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < 1) {
    throw new Error(`${name} must be a positive integer, not ${JSON.stringify(raw)}`);
  }
  return value;
}

/**
 * RESERVED_CONCURRENCY, such as `listPosts=20,createPost=5`: instances kept for (and capping)
 * each named function, so a flood of one route cannot take every instance from the others.
 */
function readReservedConcurrency(env = process.env) {
  const reserved = {};
  for (const entry of (env.RESERVED_CONCURRENCY ?? "").split(",")) {
    if (entry.trim() === "") continue;
    const [name = "", count = ""] = entry.split("=").map((part) => part.trim());
    if (!API_FUNCTIONS.includes(name) || !/^\d+$/.test(count)) {
      throw new Error(
        `RESERVED_CONCURRENCY entries must be <function>=<count> with a function among ` +
          `${API_FUNCTIONS.join(", ")}; got ${JSON.stringify(entry.trim())}`,
      );
    }
    reserved[name] = Number(count);
  }
  return reserved;
}

/**
 * The list function's Node options: a 1 MB young generation, so a Scan page's garbage is
 * collected soon instead of piling up, and V8's collector exposed, so that a Scan collects its
 * garbage every megabyte or so and before it starts (lib/storage/list-body.ts; docs/performance.md,
 * The list at any size).
 */
const LIST_NODE_OPTIONS = "--max-semi-space-size=1 --expose-gc";

module.exports = {
  DEFAULTS,
  LIST_NODE_OPTIONS,
  listNodeOptions: () => LIST_NODE_OPTIONS,
  positiveInteger,
  readReservedConcurrency,
  /** `OnDemandThroughput` of each table. */
  tableCeiling: () => ({
    MaxReadRequestUnits: positiveInteger("TABLE_MAX_READ_UNITS"),
    MaxWriteRequestUnits: positiveInteger("TABLE_MAX_WRITE_UNITS"),
  }),
  ...Object.fromEntries(
    API_FUNCTIONS.map((name) => [
      `${name}Concurrency`,
      () => readReservedConcurrency()[name] ?? null,
    ]),
  ),
};
