// Unit: the list function's V8 setting. V8 has no way to read a flag back, so the call is seen
// through the setter it is handed.
import { describe, expect, it } from "vitest";
import { favourMemory } from "../../../lib/app/heap.js";

describe("favourMemory", () => {
  it("asks V8 to favour a small heap over speed, once", () => {
    const set: string[] = [];
    favourMemory((flags) => set.push(flags));
    expect(set).toEqual(["--optimize-for-size"]);
  });

  it("sets it in this very V8 by default, which then goes on running", () => {
    expect(() => favourMemory()).not.toThrow();
  });
});
