// Bench sections in this process. "warm overhead": each handler bundle against the floor's calls
// for the same operation, alternating which side goes first. "create throughput": at a fixed
// concurrency, the create handler against bare conditional PutItems; for information, the bare
// counter ADD every create starts with, and a create handler that reserves ids in blocks.
import { apiEvent } from "../tests/helpers/api-event.mjs";
import { BARE_PUT_BASE, LIMITS, TABLES, handlerCases, importFloor } from "./context.mjs";
import { importHandler, lambdaEnv } from "./context.mjs";
import { expectStatus, filler, log, quantile, rounds, timed } from "./util.mjs";

/** @typedef {{ p50: number, p99: number }} Quantiles */
/** @typedef {{ iterations: number, handler: Quantiles, direct: Quantiles }} WarmSummary */

const quantiles = (/** @type {number[]} */ ms) => ({
  p50: quantile(ms, 0.5),
  p99: quantile(ms, 0.99),
});

/** @type {import("./context.mjs").Section} */
export const warm = {
  title: "warm overhead",
  /**
   * p50 and p99 of every handler and of its floor. Each floor is a copy of its own, so both sides'
   * SDK code has been through the same number of calls when the JIT compiles it. The handlers
   * stay loaded and warm in `ctx.handlers` (throughput reuses the create).
   */
  async measure(ctx) {
    const { warmup, iterations, budgetMsPerHandler: budgetMs } = LIMITS.warm;
    /** @type {Record<string, WarmSummary>} */
    const summary = {};
    for (const [name, spec] of Object.entries(handlerCases("warm"))) {
      const handler = await importHandler(name, lambdaEnv(ctx.endpoint, spec.table));
      ctx.handlers[name] = handler;
      const floor = await importFloor(ctx.endpoint, `for=${name}`);
      const ms = { handler: /** @type {number[]} */ ([]), direct: /** @type {number[]} */ ([]) };
      try {
        const sides = /** @type {const} */ (["handler", "direct"]);
        const done = await rounds(warmup + iterations, budgetMs, [...sides], async (side, i) => {
          // The handler's request is built before the clock starts.
          const event = side === "handler" ? spec.event(i) : undefined;
          const took = await timed(() =>
            event ? expectStatus(handler, event, spec.status) : spec.floor(floor, i),
          );
          if (i >= warmup) ms[side].push(took);
        });
        const [handlerMs, directMs] = [quantiles(ms.handler), quantiles(ms.direct)];
        summary[name] = {
          iterations: Math.max(0, done - warmup),
          handler: handlerMs,
          direct: directMs,
        };
      } finally {
        floor.destroy();
      }
    }
    return summary;
  },
  rows(/** @type {Record<string, WarmSummary>} */ summary) {
    /** @type {(q: keyof Quantiles, target?: string) => import("./util.mjs").RowSpec[]} */
    const rows = (q, target) =>
      Object.entries(summary).map(([name, w]) => {
        const metric =
          q === "p50" ? `warm p50 (vs direct SDK, n=${w.iterations})` : `warm ${q} (vs direct SDK)`;
        return [metric, name, w.handler[q], w.direct[q], "ms", target];
      });
    return [...rows("p50", "<= 1.1x"), ...rows("p99")];
  },
};

/** @typedef {"handler" | "bare" | "counter" | "block"} Side */
// Each side's segments run in a palindrome (these, then the same reversed), so that they sit, on
// average, at the same point in time and a steady drift in speed cancels out.
const SIDES = /** @type {Side[]} */ (["handler", "bare", "counter", "block"]);

/**
 * Keeps LIMITS.throughput.concurrency calls of `op` in flight for `ms` (or until
 * LIMITS.throughputMaxOps were started); counts those done and those that failed.
 * @param {(n: number) => Promise<unknown>} op @param {number} ms
 */
async function saturate(op, ms) {
  const tally = { done: 0, errors: 0, firstError: /** @type {unknown} */ (undefined) };
  const begin = performance.now();
  let started = 0;
  const worker = async () => {
    while (performance.now() < begin + ms && started < LIMITS.throughputMaxOps) {
      try {
        await op(started++);
        tally.done++;
      } catch (error) {
        tally.errors++;
        tally.firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: LIMITS.throughput.concurrency }, worker));
  return { ...tally, ms: performance.now() - begin };
}

/** @type {import("./context.mjs").Section} */
export const throughput = {
  title: "create throughput",
  /** Operations per second of each side, over all its segments, and of each segment. */
  async measure({ endpoint, floor, handlers }) {
    const warmCreate = handlers["create-post"]; // the warm section's, already warm
    if (!warmCreate) throw new Error("the warm section loads the create handler");
    const { concurrency, idBlockSize, warmupMs, segmentMs } = LIMITS.throughput;
    const env = { ...lambdaEnv(endpoint, TABLES.small), ID_BLOCK_SIZE: String(idBlockSize) };
    const blockCreate = await importHandler("create-post", env, `idBlockSize=${idBlockSize}`);
    delete process.env.ID_BLOCK_SIZE;
    let bareId = BARE_PUT_BASE;
    const content = filler(7, 200);
    const create = (
      /** @type {import("./context.mjs").Handler} */ handler,
      /** @type {number} */ n,
    ) =>
      expectStatus(handler, apiEvent({ method: "POST", body: { title: `tp ${n}`, content } }), 201);
    /** @type {Record<Side, (n: number) => Promise<unknown>>} */
    const sides = {
      handler: (n) => create(warmCreate, n),
      block: (n) => create(blockCreate, n),
      bare: (n) => {
        const at = new Date().toISOString();
        const post = { id: ++bareId, title: `tp ${n}`, content, created_at: at, updated_at: at };
        return floor.put(TABLES.small, post);
      },
      // Every create with ID_BLOCK_SIZE=1 first adds 1 to this one item: how fast can that item go?
      counter: () => floor.nextId(TABLES.small),
    };
    // DynamoDB Local's write path gets faster as its JIT warms up: warm both kinds of write first.
    await saturate(sides.handler, warmupMs);
    await saturate(sides.bare, warmupMs);
    /** @type {{ side: Side, done: number, errors: number, ms: number }[]} */
    const segments = [];
    for (const side of [...SIDES, ...SIDES.toReversed()]) {
      const { firstError, ...tally } = await saturate(sides[side], segmentMs);
      if (firstError) log(`throughput ${side}: ${tally.errors} errors, first: ${firstError}`);
      segments.push({ side, ...tally });
    }
    const perSecond = (/** @type {Side} */ side) => {
      const mine = segments.filter((segment) => segment.side === side);
      const sum = (/** @type {"done" | "ms"} */ key) => mine.reduce((all, s) => all + s[key], 0);
      return (sum("done") / sum("ms")) * 1000;
    };
    const rates = Object.fromEntries(SIDES.map((side) => [side, perSecond(side)]));
    return { concurrency, idBlockSize, ...rates, segments };
  },
  rows(/** @type {{ concurrency: number, idBlockSize: number } & Record<Side, number>} */ tp) {
    const at = `at concurrency ${tp.concurrency}`;
    /** @type {[string, string, Side, string?][]} */
    const rows = [
      [`create throughput ${at}`, "create-post", "handler", ">= 0.5x"],
      [`counter ADD/s on the one counter item ${at}`, "bare UpdateItem ADD", "counter"],
      [`create throughput, ID_BLOCK_SIZE=${tp.idBlockSize}`, "create-post", "block"],
    ];
    return rows.map(([metric, name, side, target]) => {
      return /** @type {import("./util.mjs").RowSpec} */ ([
        `${metric} (vs bare PutItem)`,
        name,
        tp[side],
        tp.bare,
        "/s",
        target,
      ]);
    });
  },
};
