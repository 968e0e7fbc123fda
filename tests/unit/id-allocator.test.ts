import { describe, expect, it } from "vitest";
import { IdAllocator } from "../../lib/id-allocator.js";

/** A counter like the table's: each reservation adds `size` and returns the new value. */
function fakeCounter() {
  let value = 0;
  const calls: number[] = [];
  const reserve = async (size: number) => {
    calls.push(size);
    await new Promise((resolve) => setTimeout(resolve, 1));
    value += size;
    return value;
  };
  return { reserve, calls };
}

describe("IdAllocator", () => {
  it("with a block of 1 makes one reservation per id", async () => {
    const counter = fakeCounter();
    const ids = new IdAllocator(counter.reserve, 1);
    expect([await ids.nextId(), await ids.nextId(), await ids.nextId()]).toEqual([1, 2, 3]);
    expect(counter.calls).toEqual([1, 1, 1]);
  });

  it("hands out a block in order and reserves the next only when it runs out", async () => {
    const counter = fakeCounter();
    const ids = new IdAllocator(counter.reserve, 5);
    const issued = [];
    for (let i = 0; i < 12; i++) issued.push(await ids.nextId());
    expect(issued).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(counter.calls).toEqual([5, 5, 5]);
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
  let value = 0;
  let inFlight = 0;
  let most = 0;
  const reserve = async () => {
    most = Math.max(most, ++inFlight);
    await new Promise((resolve) => setTimeout(resolve, 5));
    inFlight--;
    return ++value;
  };
  const ids = new IdAllocator(reserve, 1);
  const issued = await Promise.all(Array.from({ length: 8 }, () => ids.nextId()));
  expect(most).toBe(8); // no queue behind one reservation
  expect(new Set(issued).size).toBe(8);
});
