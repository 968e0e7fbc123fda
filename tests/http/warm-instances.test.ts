// serverless-offline with `npm start`'s options, under load: instances stay warm and are reused as
// on Lambda, nothing fails, and memory stops growing once every instance is warm.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort } from "../../scripts/lib/ports.mjs";
import { runLoad } from "../../scripts/load.mjs";
import { rssOf, spawnOffline } from "../../scripts/lib/offline.mjs";
import { freshTable } from "../helpers/db.js";

const CONNECTIONS = 16;
/** Each instance reserves this many ids at once, so an id tells which instance made the post. */
const ID_BLOCK_SIZE = 1_000;
/** Generous: warm rounds of 3,000 creates measured 25-45 MB of churn between garbage collections. */
const RSS_GROWTH_LIMIT_MB = 120;

let table: Awaited<ReturnType<typeof freshTable>>;
let offline: ReturnType<typeof spawnOffline>;

beforeAll(async () => {
  table = await freshTable("warm-instances");
  offline = spawnOffline({
    host: "127.0.0.1",
    httpPort: await freePort(),
    lambdaPort: await freePort(),
    dynamoEndpoint: inject("dynamoEndpoint"),
    postsTable: table.tableName,
    idempotencyTable: table.idempotencyTableName,
    stdio: "ignore",
    env: { LOG_LEVEL: "silent", ID_BLOCK_SIZE: String(ID_BLOCK_SIZE) },
  });
  await offline.ready();
});

afterAll(async () => {
  await offline?.stop();
  await table?.drop();
});

const instancesBehind = (ids: number[]) =>
  new Set(ids.map((id) => Math.floor((id - 1) / ID_BLOCK_SIZE))).size;

describe("npm start's serverless-offline under load", () => {
  it("answers 400 mixed requests without an error, in memory that stops growing", async () => {
    const server = { baseUrl: offline.baseUrl, rss: () => rssOf(offline.pid) };
    const warmUp = await runLoad(server, { connections: CONNECTIONS, requests: 100 });
    expect(warmUp.errors).toBe(0);

    const measured = await runLoad(server, { connections: CONNECTIONS, requests: 300 });
    expect(measured.result.requests.total).toBe(300);
    expect(measured.errors).toBe(0);
    expect(offline.child.exitCode).toBeNull();
    // Read through the API's client, as npm run load does: what was deleted is gone, the rest is there.
    expect(measured.problems).toEqual([]);
    expect(measured.deletedIds.size).toBeGreaterThan(40);

    const [before = 0, ...during] = measured.rss;
    const growthMb = (Math.max(before, ...during) - before) / 1e6;
    expect(growthMb).toBeLessThan(RSS_GROWTH_LIMIT_MB);

    // One loaded create function served them all (a new instance would reserve a new id block).
    const created = [...warmUp.createdIds, ...measured.createdIds];
    expect(created.length).toBeGreaterThanOrEqual(400 / 5 - CONNECTIONS);
    expect(instancesBehind(created)).toBe(1);
  }, 90_000);
});
