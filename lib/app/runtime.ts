// The composition root: the logger and repository one Lambda instance shares, built once, and
// the first request's work done while the instance initializes.
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { gzipMemo } from "../http/compress.js";
import { type Logger, createLogger } from "../http/logger.js";
import { getPost, listPosts, prepareList } from "../http/routes.js";
import type { PostStorage } from "../posts/repository.js";
import { createDocumentClient } from "../storage/client.js";
import { DynamoPostRepository } from "../storage/dynamo-repository.js";
import { Sender } from "../storage/sender.js";
import { SpendLedgerTable } from "../storage/spend-ledger.js";
import type { Config } from "./config.js";
import { collectYoungGarbage } from "./heap.js";
import { rehearseGet } from "./rehearsal.js";
import { spendGuard } from "./spending.js";

/** What every handler of an instance is built over. */
export interface Runtime {
  logger: Logger;
  posts: PostStorage;
  /** The origins whose browser apps may read the answers. */
  corsOrigins: readonly string[];
  /** The stage's spending limit, when on (SPEND_LIMIT_USD): the instance's meter and its guard. */
  spending?: ReturnType<typeof spendGuard>;
}

/**
 * How long init may spend on the first request's work. Lambda allows 10 s of init; a list of a
 * table too large to Scan in this time is left to the first request, as before.
 */
export const INIT_WORK_BUDGET_MS = 2_000;

/** The DynamoDB repository a configuration names, over `client`. */
export function dynamoRepository(config: Config, client: DynamoDBDocumentClient) {
  return new DynamoPostRepository(client, config.tableName, {
    idempotencyTableName: config.idempotencyTableName,
    idBlockSize: config.idBlockSize,
  });
}

/** Wires a configuration into a logger and a repository over a new client. */
export function buildRuntime(config: Config): Runtime {
  const client = createDocumentClient(config);
  const posts = dynamoRepository(config, client);
  const logger = createLogger(config.logLevel, config.serviceName);
  const keys = config.idempotencyTableName;
  // The ledger's calls go through a sender of their own, outside any request's counts.
  const ledger = keys
    ? new SpendLedgerTable(new Sender(client, [config.tableName, keys]), keys)
    : undefined;
  const spending = spendGuard(config, ledger, logger);
  return { logger, posts, corsOrigins: config.corsOrigins, spending };
}

/**
 * Init's first work and, beside it, the month's spending read from the ledger, so the instance
 * knows before its first answer whether the stage is paused: both within init's budget (warmUp).
 */
async function initWork(runtime: Runtime, work: Parameters<typeof warmUp>[1]) {
  const meter = runtime.spending?.meter;
  await warmUp(runtime, (posts, signal) => Promise.all([work(posts, signal), meter?.start()]));
}

/** A route's handler over the runtime: its storage, logger, CORS origins and spending limit. */
const over = <H>(
  route: (...args: Parameters<typeof getPost>) => H,
  runtime: Runtime,
  compress?: Parameters<typeof getPost>[3],
) => route(runtime.posts, runtime.logger, runtime.corsOrigins, compress, runtime.spending?.guard);

/**
 * A write's handler (create, update, delete), after one small read at init: credentials,
 * endpoint and connection ready before the first request.
 */
export async function preparedHandler<H>(
  config: Config,
  route: (...args: Parameters<typeof getPost>) => H,
) {
  const runtime = buildRuntime(config);
  await initWork(runtime, (posts, signal) => posts.warmUp(signal));
  return over(route, runtime);
}

/**
 * Does a first request's storage work during init (Lambda runs init at full speed, often before
 * any request arrives), so the first invoke costs about what a warm one does. It never fails and
 * never outlasts `budgetMs`: whatever goes wrong is one log line, and the first request then does
 * the work itself, exactly as without this step.
 */
export async function warmUp(
  { posts, logger }: Pick<Runtime, "posts" | "logger">,
  work: (posts: PostStorage, signal: AbortSignal) => Promise<unknown>,
  budgetMs = INIT_WORK_BUDGET_MS,
): Promise<void> {
  const started = performance.now();
  const budget = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // The signal cancels the SDK's call; the race ends init even if something ignored the signal.
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`init work took over ${budgetMs} ms`);
      error.name = "TimeoutError";
      budget.abort(error);
      reject(error);
    }, budgetMs);
  });
  try {
    await Promise.race([work(posts, budget.signal), late]);
  } catch (failure) {
    const error = failure instanceof Error ? failure : new Error(String(failure));
    const cause = error.cause instanceof Error ? error.cause : error;
    logger.error("init work failed; the first request will do it", {
      durationMs: Math.round(performance.now() - started),
      error: { name: cause.name, message: cause.message },
    });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The list's handler, its first list's work done at init: the whole list kept by storage's list
 * cache and its gzip by the handler's own memo, the list checked against the change marker like
 * any kept list, so a write after init is still seen.
 */
export async function preparedListHandler(runtime: Runtime) {
  const compress = gzipMemo();
  await initWork(runtime, (posts, signal) => prepareList(posts, signal, compress));
  return over(listPosts, runtime, compress);
}

/**
 * The get's handler, its first request's work done at init: the small read that readies the
 * client and its connection, the route rehearsed with its calls answered in memory
 * (rehearsal.ts), then init's garbage collected, so the first get costs about what a warm one does.
 */
export async function preparedGetHandler(config: Config) {
  const runtime = buildRuntime(config);
  await initWork(runtime, (posts, signal) => posts.warmUp(signal));
  // Stryker disable next-line all: speed, not behaviour: the bench measures the first get
  await warmUp(runtime, () => rehearseGet(config, runtime.corsOrigins));
  // Stryker disable next-line all: as above
  collectYoungGarbage();
  return over(getPost, runtime);
}
