// Unit: entries split into batch requests within a service's limits (entries, bytes, one entry of
// a post per request), and requests sent in order until the first that does not take them all.
import { describe, expect, it } from "vitest";
import { type Outgoing, requestBatches, sendInOrder } from "../../../lib/events/request-batches.js";

const limits = { maxEntries: 10, maxBytes: 1_000 };
const items = (sizes: number[], groups: (string | undefined)[] = []): Outgoing<string>[] =>
  sizes.map((bytes, at) => ({ at, entry: `e${at}`, bytes, group: groups[at] }));
/** Each request as the stream indexes of its entries. */
const shape = (requests: Outgoing<string>[][]) => requests.map((r) => r.map(({ at }) => at));

describe("requestBatches", () => {
  it.each([
    ["none", [], []],
    ["one", [10], [[0]]],
    ["ten in one request", Array(10).fill(10), [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]]],
    ["the eleventh in a second", Array(11).fill(10), [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [10]]],
    ["up to the byte limit exactly", [500, 500, 1], [[0, 1], [2]]],
    ["one byte over it in the next", [500, 501], [[0], [1]]],
    ["an entry over the limit alone", [10, 1_500, 10], [[0], [1], [2]]],
  ])("puts %s", (_, sizes, expected) => {
    expect(shape(requestBatches(items(sizes), limits))).toEqual(expected);
  });

  it("never puts two entries of one group in a request, and keeps the order", () => {
    const grouped = items([1, 1, 1, 1, 1], ["7", "8", "7", undefined, undefined]);
    expect(shape(requestBatches(grouped, limits))).toEqual([
      [0, 1],
      [2, 3, 4],
    ]);
  });
});

describe("sendInOrder", () => {
  const requests = requestBatches(items(Array(25).fill(1)), limits);

  it("sends every request, one after another, and answers undefined when all were taken", async () => {
    const sent: string[][] = [];
    const stop = await sendInOrder(requests, async (entries) => (sent.push(entries), []), fail);
    expect(stop).toBeUndefined();
    expect(sent.map((entries) => entries.length)).toEqual([10, 10, 5]);
  });

  it("stops at the first request that refused an entry, answering the first refused one", async () => {
    const sent: string[][] = [];
    const refuse = async (entries: string[]) => {
      sent.push(entries);
      return sent.length === 2 ? [7, 3] : [];
    };
    expect(await sendInOrder(requests, refuse, fail)).toBe(13);
    expect(sent).toHaveLength(2);
  });

  it("takes a request that throws as refusing all of it, and says why", async () => {
    const errors: unknown[] = [];
    const stop = await sendInOrder(
      requests,
      async () => Promise.reject(new Error("throttled")),
      (error) => errors.push(error),
    );
    expect(stop).toBe(0);
    expect(String(errors[0])).toContain("throttled");
  });

  it("takes an index the request lacks as its first entry", async () => {
    expect(await sendInOrder(requests, async () => [99], fail)).toBe(0);
  });
});

function fail(error: unknown): never {
  throw error;
}
