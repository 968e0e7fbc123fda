// Test harness: the shared serverless-offline instances, in vitest's own process. A file leases one
// (leaseOffline) while it runs; then every post left is deleted through the API, for the next file.
import { statSync } from "node:fs";
import { type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { freshTable } from "./db.js";
import { type LeaseInfo, serve } from "./offline.js";
import { SHARED_CONFIGS, type SharedConfig } from "./offline-configs.js";
import { token } from "./tokens.js";

/** Per configuration: a second instance keeps a long file from holding up the short ones. */
const MAX_INSTANCES_PER_CONFIG = 2;

interface Instance {
  served: Awaited<ReturnType<typeof serve>>;
  table: Awaited<ReturnType<typeof freshTable>>;
}
type Waiter = { grant(instance: Instance): void; fail(error: unknown): void };
type Pool = { idle: Instance[]; all: Set<Instance>; waiting: Waiter[]; starting: number };

/** Serves leases on a loopback port; `stop()` ends every instance and drops its table. */
export async function startOfflinePool(dynamoEndpoint: string) {
  const pools = new Map<SharedConfig, Pool>();
  const poolOf = (config: SharedConfig) => {
    let pool = pools.get(config);
    if (!pool) pools.set(config, (pool = { idle: [], all: new Set(), waiting: [], starting: 0 }));
    return pool;
  };

  const start = async (config: SharedConfig): Promise<Instance> => {
    const table = await freshTable(`shared-${config}`, dynamoEndpoint);
    const { tableName, idempotencyTableName } = table;
    try {
      const options = { dynamoEndpoint, tableName, idempotencyTableName };
      return { served: await serve({ ...options, ...SHARED_CONFIGS[config] }), table };
    } catch (error) {
      await table.drop();
      throw error;
    }
  };
  let stopping = false;
  const retire = async (pool: Pool, instance: Instance) => {
    if (!pool.all.delete(instance)) return; // retired already
    await instance.served.stop();
    await instance.table.drop();
  };

  /** Hands idle instances to waiting files, and starts one more if they wait and room is left. */
  const dispatch = (config: SharedConfig) => {
    const pool = poolOf(config);
    while (pool.waiting.length > 0 && pool.idle.length > 0) {
      pool.waiting.shift()?.grant(pool.idle.pop() as Instance);
    }
    if (pool.waiting.length <= pool.starting) return;
    if (pool.all.size + pool.starting >= MAX_INSTANCES_PER_CONFIG) return;
    pool.starting += 1;
    start(config).then(
      (instance) => {
        pool.starting -= 1;
        pool.all.add(instance);
        // Started after stop() retired the rest: nobody else would end it.
        if (stopping) return void retire(pool, instance);
        pool.idle.push(instance);
        dispatch(config);
      },
      (error: unknown) => {
        pool.starting -= 1;
        pool.waiting.shift()?.fail(error);
        dispatch(config);
      },
    );
  };

  /** Back to the pool with no post left, or retired if its table could not be emptied. */
  const release = async (config: SharedConfig, instance: Instance) => {
    const pool = poolOf(config);
    if (stopping) return; // stop() retires every instance
    try {
      await emptyThroughApi(config, instance);
      pool.idle.push(instance);
    } catch (error) {
      if (stopping) return;
      console.error(`a shared serverless-offline (${config}) is retired: ${String(error)}`);
      await retire(pool, instance);
    }
    dispatch(config);
  };

  const lease = (config: SharedConfig, response: ServerResponse) => {
    let gone = false;
    response.once("close", () => (gone = true));
    poolOf(config).waiting.push({
      grant(instance) {
        if (gone) return void release(config, instance);
        response.once("close", () => void release(config, instance));
        const { served } = instance;
        const info: LeaseInfo = { ...served, logOffset: statSync(served.logFile).size };
        response.writeHead(200, { "content-type": "application/x-ndjson" });
        response.write(`${JSON.stringify(info)}\n`);
      },
      fail(error) {
        response.writeHead(500).end(String(error));
      },
    });
    dispatch(config);
  };

  const server = createServer((request, response) => {
    const config = /^\/lease\/(\w+)$/.exec(request.url ?? "")?.[1];
    if (config && config in SHARED_CONFIGS) lease(config as SharedConfig, response);
    else response.writeHead(404).end(`no shared configuration at ${request.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      stopping = true;
      server.closeAllConnections();
      server.close();
      const all = [...pools.values()].flatMap((pool) =>
        [...pool.all].map((i) => [pool, i] as const),
      );
      await Promise.all(all.map(([pool, instance]) => retire(pool, instance)));
    },
  };
}

/** Deletes each post left through the API (the list's caches hear of it); throws if any stays. */
async function emptyThroughApi(config: SharedConfig, { served, table }: Instance) {
  const authorized = "AUTH_ISSUER_URL" in SHARED_CONFIGS[config].env;
  const headers = authorized ? { authorization: `Bearer ${await token()}` } : undefined;
  const ids = (await table.posts()).map((post) => post.id);
  // One at a time: serverless-offline runs a worker thread, a cold start, per request in flight.
  for (const id of ids) {
    const answer = await fetch(`${served.offlineUrl}/api/post/${id}`, {
      method: "DELETE",
      headers,
    });
    await answer.arrayBuffer();
    if (answer.status !== 204) throw new Error(`DELETE ${id}: ${answer.status}`);
  }
  const left = (await table.posts()).length;
  if (left > 0) throw new Error(`${left} posts left after deleting each through the API`);
}
