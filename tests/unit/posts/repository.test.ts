// Unit tests: the storage counts a request's metrics are made of.
import { describe, expect, it } from "vitest";
import { type StorageCounts, addCount } from "../../../lib/storage/counts.js";

describe("addCount", () => {
  it("starts a count at what it adds, one by default, and adds to it after", () => {
    const counts: StorageCounts = {};
    addCount(counts, "ListScanned");
    addCount(counts, "IdsSkipped", 3);
    addCount(counts, "IdsSkipped", 2);
    expect(counts).toEqual({ ListScanned: 1, IdsSkipped: 5 });
  });

  it("does nothing when the caller asked for no counts", () => {
    expect(() => addCount(undefined, "ListFromMemory")).not.toThrow();
  });
});
