// Unit: the list function's V8 setting. V8 has no way to read a flag back, so its one call is
// observed on a stand-in of node:v8.
import { describe, expect, it, vi } from "vitest";

const setFlagsFromString = vi.fn();
vi.mock("node:v8", () => ({ setFlagsFromString }));
const { favourMemory } = await import("../../../lib/app/runtime.js");

describe("favourMemory", () => {
  it("asks V8 to favour a small heap over speed, once per call", () => {
    favourMemory();
    expect(setFlagsFromString.mock.calls).toEqual([["--optimize-for-size"]]);
  });
});
