// What init asks of V8's heap: the list's collector set to favour memory, and the get's young
// garbage collected before its first request. Both only change when V8 collects, never what a
// function answers.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Asks V8 to collect garbage sooner rather than let its heap grow: the list function's Scan
 * leaves a page's worth of garbage behind every page, and a list holds the whole table. Measured
 * on 10,000 and 50,000 posts, it lowers the instance's peak by about a quarter at no cost in time
 * (docs/performance.md, The list at any size). Node refuses this flag in NODE_OPTIONS, so it is
 * set here, before the first request; it only changes when the collector runs.
 */
export function favourMemory(setFlags: (flags: string) => void = setFlagsFromString): void {
  setFlags("--optimize-for-size");
}

/**
 * Collects init's young garbage before the first request. V8 would collect it during that
 * request, and the first collection after init, which moves out all that init keeps, is the
 * dearest: measured on the get, it fell in more than half of the first requests, about 2 ms of
 * each. Node has no call for it but V8's `gc`, which the flag adds to contexts made while it is set.
 */
export function collectYoungGarbage(setFlags: (flags: string) => void = setFlagsFromString): void {
  setFlags("--expose-gc");
  let gc: (options: { type: "minor" }) => void;
  try {
    gc = runInNewContext("gc") as typeof gc;
  } finally {
    setFlags("--no-expose-gc");
  }
  // Stryker disable next-line all: a full collection empties the young space too; only speed differs
  gc({ type: "minor" });
}
