// Test helper: one process of the list-cache workload, one Lambda instance with its own list cache.
// tests/integration/list-cache-workload.test.ts bundles this file, forks several, and checks every
// list against the writes acknowledged before it began.
import { readConfig } from "../../lib/app/config.js";
import { dynamoRepository } from "../../lib/app/runtime.js";
import { createDocumentClient } from "../../lib/storage/client.js";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../../lib/http/logger.js";
import { apiEvent } from "./events.js";
import { handlersOver } from "./handlers.js";

/** What the test asks one worker to do. */
export interface ListWorkerPlan {
  worker: number;
  /** Writes this worker makes, one after another, a short pause between them. */
  writes: number;
  pauseMs: number;
  /** Concurrent lanes that list without pause until the writes are done. */
  listLanes: number;
  seed: number;
  /** A folder where each worker leaves a file once its writes are done. */
  barrier: string;
  /** Workers to wait for in `barrier` before the last list. */
  workers: number;
}

/** One answered request, with CLOCK_MONOTONIC times in µs (one clock for every process). */
export interface ListWorkerRecord {
  worker: number;
  op: "create" | "update" | "delete" | "list";
  status: number;
  id?: number;
  title?: string;
  /** For a list: [id, title] of every post, in the order answered. */
  posts?: [number, string][];
  start: number;
  end: number;
}

export type ListWorkerMessage =
  | { type: "ready" }
  | {
      type: "done";
      records: ListWorkerRecord[];
      /** Lists by the path they took, from the lines' counts. */
      paths: Record<"ListScanned" | "ListPatched" | "ListFromMemory", number>;
      /** The body of a list made once every worker's writes were done. */
      final: string;
    }
  | { type: "failed"; error: string };

const now = () => Number(process.hrtime.bigint() / 1000n);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const config = readConfig();
const client = createDocumentClient(config);
const posts = dynamoRepository(config, client);
const paths = { ListScanned: 0, ListPatched: 0, ListFromMemory: 0 };
const countingLogger: Logger = {
  info: (_message, fields = {}) => {
    for (const path of Object.keys(paths) as (keyof typeof paths)[]) {
      if (fields[path] === 1) paths[path]++;
    }
  },
  error: () => {},
};
const api = handlersOver(posts, countingLogger);

async function run(plan: ListWorkerPlan): Promise<void> {
  const records: ListWorkerRecord[] = [];
  const mine: number[] = [];
  let state = plan.seed * 7919 + plan.worker;
  const pick = (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % n;
  };
  let writing = true;
  const call = async (
    op: ListWorkerRecord["op"],
    options: Parameters<typeof apiEvent>[0],
    extra: Partial<ListWorkerRecord> = {},
  ) => {
    const start = now();
    const result = (await api[op](apiEvent(options))) as { statusCode: number; body: string };
    const end = now();
    const record: ListWorkerRecord = {
      worker: plan.worker,
      op,
      status: result.statusCode,
      ...extra,
      start,
      end,
    };
    if (op === "create" && result.statusCode === 201) {
      record.id = (JSON.parse(result.body) as { id: number }).id;
    }
    if (op === "list" && result.statusCode === 200) {
      const list = JSON.parse(result.body) as { id: number; title: string }[];
      record.posts = list.map((post) => [post.id, post.title]);
    }
    records.push(record);
    return record;
  };
  const writer = async () => {
    for (let i = 0; i < plan.writes; i++) {
      const roll = pick(10);
      const title = `w${plan.worker}-${i}`;
      if (mine.length < 3 || roll < 4) {
        const made = await call(
          "create",
          { method: "POST", body: { title, content: "c" } },
          { title },
        );
        if (made.id !== undefined) mine.push(made.id);
      } else if (roll < 8) {
        const id = mine[pick(mine.length)]!;
        await call("update", { method: "PUT", postId: id, body: { title } }, { id, title });
      } else {
        const id = mine.splice(pick(mine.length), 1)[0]!;
        await call("delete", { method: "DELETE", postId: id }, { id });
      }
      await sleep(plan.pauseMs);
    }
    writing = false;
  };
  const lister = async () => {
    while (writing) await call("list", { method: "GET" });
  };
  await Promise.all([writer(), ...Array.from({ length: plan.listLanes }, lister)]);
  await writeFile(join(plan.barrier, String(plan.worker)), "");
  while ((await readdir(plan.barrier)).length < plan.workers) await sleep(20);
  const final = (await api.list(apiEvent({ method: "GET" }))) as { body: string };
  finish({ type: "done", records, paths, final: final.body });
}

function finish(message: ListWorkerMessage): void {
  client.destroy();
  process.send!(message, () => process.exit(0));
}

process.on("message", (message: { type: "go"; plan: ListWorkerPlan }) => {
  if (message.type !== "go") return;
  run(message.plan).catch((error: unknown) =>
    finish({
      type: "failed",
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    }),
  );
});
process.send!({ type: "ready" } satisfies ListWorkerMessage);
