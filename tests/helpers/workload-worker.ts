// Test helper: one process of tests/integration/workload.test.ts, one Lambda instance with its own
// list cache: it records its mixed operations, its listing lanes' lists, and a last list.
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readConfig } from "../../lib/app/config.js";
import type { ApiHandler } from "../../lib/http/handler.js";
import type { Logger } from "../../lib/http/logger.js";
import { dynamoRepository } from "../../lib/app/runtime.js";
import { createDocumentClient } from "../../lib/storage/client.js";
import { apiEvent } from "./events.js";
import { handlersOver } from "./handlers.js";

export type Operation = "create" | "update" | "delete" | "get" | "list";
type Post = { id: number; title: string };
type Answer = { statusCode: number; body: string };

/**
 * What the test asks one worker to do: `operations` shared among `lanes` concurrent loops, ids
 * drawn from 1..idRange, none started after `timeLimitMs`; `listLanes` only list, `listPauseMs`
 * apart, meanwhile. Then it leaves a file in `barrier` and waits for `workers` files there.
 */
export interface WorkerPlan {
  worker: number;
  operations: number;
  lanes: number;
  seed: number;
  idRange: number;
  timeLimitMs: number;
  listLanes: number;
  listPauseMs: number;
  barrier: string;
  workers: number;
}

/** One operation as the worker saw it: what it sent, what came back, and when (µs, monotonic). */
export interface OperationRecord {
  worker: number;
  lane: number;
  seq: number;
  op: Operation;
  /** The target id; for a create, the client-chosen id (`clientId`) or the id the 201 returned. */
  id?: number;
  clientId: boolean;
  sent?: { title?: string; content?: string };
  status: number;
  body: unknown;
  /** For a list of a listing lane: [id, title] of each post, in the order answered (no body). */
  listed?: [number, string][];
  start: number;
  end: number;
}

/** Lists by the path they took, from the request lines' counts. */
export type ListPaths = Record<"ListScanned" | "ListPatched" | "ListFromMemory", number>;

export type WorkerMessage =
  | { type: "ready" }
  /** `final`: the body of a list made once every worker's operations were done. */
  | ({ type: "done"; records: OperationRecord[]; truncated: boolean; errors: string[] } & {
      paths: ListPaths;
      final: string;
    })
  | { type: "failed"; error: string };

/** CLOCK_MONOTONIC in microseconds: one clock for every process on the machine. */
const now = () => Number(process.hrtime.bigint() / 1000n);

/** A small seeded PRNG (mulberry32), so each lane's choices repeat from run to run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const errors: string[] = [];
const paths: ListPaths = { ListScanned: 0, ListPatched: 0, ListFromMemory: 0 };
const logger: Logger = {
  info: (_message, fields = {}) => {
    for (const path of Object.keys(paths) as (keyof ListPaths)[]) {
      if (fields[path] === 1) paths[path]++;
    }
  },
  error: (message, fields) => {
    if (errors.length < 20) errors.push(`${message} ${JSON.stringify(fields)}`);
  },
};
const config = readConfig();
const documentClient = createDocumentClient(config);
const posts = dynamoRepository(config, documentClient);
const api: Record<Operation, ApiHandler> = handlersOver(posts, logger);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const METHODS = {
  create: "POST",
  update: "PUT",
  delete: "DELETE",
  get: "GET",
  list: "GET",
} as const;
/** Each operation's share of a lane's draws, in order: 30% creates, 20% updates, ... */
const MIX: [Operation, number][] = [
  ["create", 0.3],
  ["update", 0.5],
  ["delete", 0.65],
  ["get", 0.9],
  ["list", 1],
];

async function run(plan: WorkerPlan): Promise<void> {
  const records: OperationRecord[] = [];
  const known = new Set<number>();
  const stopAt = Date.now() + plan.timeLimitMs;
  let issued = 0;
  let truncated = false;

  const lane = async (laneIndex: number) => {
    const next = random(plan.seed * 7919 + plan.worker * 104_729 + laneIndex);
    const pick = (n: number) => Math.floor(next() * n);
    const target = () =>
      known.size > 0 && next() < 0.75 ? [...known][pick(known.size)]! : 1 + pick(plan.idRange);
    while (issued < plan.operations) {
      if (Date.now() > stopAt) {
        truncated = true;
        return;
      }
      const seq = issued++;
      const tag = `w${plan.worker}-${seq}`;
      const roll = next();
      const op = MIX.find(([, below]) => roll < below)![0];
      let id: number | undefined;
      let clientId = false;
      let payload: Record<string, unknown> | undefined;
      let sent: OperationRecord["sent"];
      if (op === "create") {
        sent = { title: `${tag} title`, content: `${tag} content` };
        payload = { ...sent };
        if (next() < 0.15) {
          clientId = true;
          id = 1 + pick(plan.idRange);
          payload.id = id;
        }
      } else if (op === "update") {
        id = target();
        const which = next();
        sent = {};
        if (which < 0.75) sent.title = `${tag} title`;
        if (which >= 0.5) sent.content = `${tag} content`;
        payload = { ...sent };
      } else if (op !== "list") {
        id = target();
      }
      const event = apiEvent({
        method: METHODS[op],
        postId: id === undefined || op === "create" ? undefined : String(id),
        body: payload,
      });
      const start = now();
      const result = (await api[op](event)) as Answer;
      const end = now();
      const body: unknown = JSON.parse(result.body);
      if (op === "create" && result.statusCode === 201) id = (body as { id: number }).id;
      if (result.statusCode === 201 || (op === "get" && result.statusCode === 200)) known.add(id!);
      if (op === "delete" || result.statusCode === 404) known.delete(id!);
      if (op === "list" && Array.isArray(body)) {
        for (const post of body.slice(-20)) known.add((post as { id: number }).id);
      }
      const record = { worker: plan.worker, lane: laneIndex, seq, op, id, clientId, sent };
      records.push({ ...record, status: result.statusCode, body, start, end });
    }
  };

  let operating = true;
  const lister = async (laneIndex: number) => {
    while (operating) {
      const start = now();
      const result = (await api.list(apiEvent({ method: "GET" }))) as Answer;
      const end = now();
      const listed = result.statusCode === 200 ? (JSON.parse(result.body) as Post[]) : [];
      records.push({
        ...{ worker: plan.worker, lane: -1 - laneIndex, seq: -1, op: "list", clientId: false },
        ...{ status: result.statusCode, body: null, start, end },
        listed: listed.map((post) => [post.id, post.title]),
      });
      await sleep(plan.listPauseMs);
    }
  };
  const listing = Array.from({ length: plan.listLanes }, (_, index) => lister(index));
  await Promise.all(Array.from({ length: plan.lanes }, (_, index) => lane(index)));
  operating = false;
  await Promise.all(listing);
  await writeFile(join(plan.barrier, String(plan.worker)), "");
  while ((await readdir(plan.barrier)).length < plan.workers) await sleep(20);
  const final = (await api.list(apiEvent({ method: "GET" }))) as Answer;
  records.sort((a, b) => a.seq - b.seq);
  finish({ type: "done", records, truncated, errors, paths, final: final.body });
}

function finish(message: WorkerMessage): void {
  documentClient.destroy();
  process.send!(message, () => process.exit(0));
}

process.on("message", (message: { type: "go"; plan: WorkerPlan }) => {
  if (message.type !== "go") return;
  run(message.plan).catch((error: unknown) =>
    finish({
      type: "failed",
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    }),
  );
});
process.send!({ type: "ready" } satisfies WorkerMessage);
