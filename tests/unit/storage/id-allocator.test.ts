import { describe, expect, it } from "vitest";
import { ID_TAKEN, IdAllocator } from "../../../lib/storage/id-allocator.js";

/** A counter like the table's: each reservation adds `size` and returns the new value. */
function fakeCounter() {
  let [value, inFlight, most] = [0, 0, 0];
  const calls: number[] = [];
  const reserve = async (size: number) => {
    calls.push(size);
    most = Math.max(most, ++inFlight);
    await new Promise((resolve) => setTimeout(resolve, 1));
    inFlight--;
    return (value += size);
  };
  return { reserve, calls, mostAtOnce: () => most };
}

describe("IdAllocator", () => {
  it.each([
    [1, [1, 2, 3], [1, 1, 1]],
    [5, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [5, 5, 5]],
  ])("with a block of %i hands out ids in turn, reserving when out", async (size, ids, calls) => {
    const counter = fakeCounter();
    const allocator = new IdAllocator(counter.reserve, size);
    const issued = [];
    while (issued.length < ids.length) issued.push(await allocator.nextId());
    expect(issued).toEqual(ids);
    expect(counter.calls).toEqual(calls);
  });

  it("shares one reservation among concurrent callers and never repeats an id", async () => {
    const counter = fakeCounter();
    const ids = new IdAllocator(counter.reserve, 10);
    const issued = await Promise.all(Array.from({ length: 35 }, () => ids.nextId()));
    expect(new Set(issued).size).toBe(35);
    expect(counter.calls).toEqual([10, 10, 10, 10]);
  });

  it("keeps two instances apart: their blocks never overlap", async () => {
    const counter = fakeCounter();
    const a = new IdAllocator(counter.reserve, 4);
    const b = new IdAllocator(counter.reserve, 4);
    const issued = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).nextId()),
    );
    expect(new Set(issued).size).toBe(20);
  });
});

it("with a block of 1 lets concurrent callers reserve at the same time", async () => {
  const counter = fakeCounter();
  const ids = new IdAllocator(counter.reserve, 1);
  const issued = await Promise.all(Array.from({ length: 8 }, () => ids.nextId()));
  expect(counter.mostAtOnce()).toBe(8); // no queue behind one reservation
  expect(new Set(issued).size).toBe(8);
});

describe("a reservation shared by concurrent callers that fails", () => {
  /** A counter whose reservation waits until `signal` aborts (then rejects) or `release` is called. */
  function heldCounter() {
    let value = 0;
    const calls: number[] = [];
    let release = () => {};
    const reserve = (size: number, signal?: AbortSignal) =>
      new Promise<number>((resolve, reject) => {
        calls.push(size);
        signal?.addEventListener("abort", () => reject(signal.reason));
        release = () => resolve((value += size));
      });
    return { reserve, calls, release: () => release() };
  }

  it("when the first caller's deadline cancels it, fails that caller only; the other reserves again", async () => {
    const counter = heldCounter();
    const ids = new IdAllocator(counter.reserve, 10);
    const first = new AbortController();
    const firstId = ids.nextId(first.signal);
    const secondId = ids.nextId(new AbortController().signal);
    const thirdId = ids.nextId(); // no deadline of its own
    const reason = new Error("first caller's deadline");
    first.abort(reason);
    await expect(firstId).rejects.toBe(reason);
    await Promise.resolve();
    counter.release();
    expect([await secondId, await thirdId]).toEqual([1, 2]);
    expect(counter.calls).toEqual([10, 10]);
  });

  it("when it fails for another reason, fails every caller sharing it", async () => {
    const failure = new Error("storage down");
    const reserve = async () => Promise.reject(failure);
    const ids = new IdAllocator(reserve, 10);
    const results = await Promise.allSettled([
      ids.nextId(),
      ids.nextId(new AbortController().signal),
    ]);
    expect(results).toEqual([
      { status: "rejected", reason: failure },
      { status: "rejected", reason: failure },
    ]);
  });

  it("when the waiting caller's own deadline has passed too, fails it as well", async () => {
    const counter = heldCounter();
    const ids = new IdAllocator(counter.reserve, 10);
    const first = new AbortController();
    const second = new AbortController();
    const firstId = ids.nextId(first.signal);
    const secondId = ids.nextId(second.signal);
    second.abort(new Error("second caller's deadline"));
    const reason = new Error("first caller's deadline");
    first.abort(reason);
    await expect(firstId).rejects.toBe(reason);
    await expect(secondId).rejects.toBe(reason);
    expect(counter.calls).toEqual([10]);
  });
});

describe("withFreeId", () => {
  it("takes the first id from the block, then skips 2, 4, 8 … values past taken ones", async () => {
    const counter = fakeCounter();
    const ids = new IdAllocator(counter.reserve, 10);
    const tried: number[] = [];
    const written = await ids.withFreeId(async (id) => {
      tried.push(id);
      return tried.length < 4 ? ID_TAKEN : id;
    });
    expect(counter.calls).toEqual([10, 2, 4, 8]);
    expect(tried).toEqual([1, 12, 16, 24]);
    expect(written).toBe(24);
  });
});
