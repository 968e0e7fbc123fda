// Unit: the skeleton every command runs in (scripts/lib/cli.mjs): --help, an unknown flag, a
// failure in one line, the service on $PORT, and progress at a terminal or in a log.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { StopError, localUrl, progress, runWithFlags, urlFlag } from "../../../scripts/lib/cli.mjs";

let out: string[];
let err: string[];
beforeEach(() => {
  out = [];
  err = [];
  vi.spyOn(console, "log").mockImplementation((line: string) => void out.push(line));
  vi.spyOn(console, "error").mockImplementation((line: unknown) => void err.push(String(line)));
  process.exitCode = undefined;
});
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

/** A command whose run records that it ran, and fails as told. */
const command = (fail?: Error) => {
  const ran: unknown[] = [];
  const run = async (count: number) => {
    ran.push(count);
    if (fail) throw fail;
    return 0;
  };
  const flags = { count: { type: "string" as const, default: "1" } };
  const read = (values: Record<string, unknown>) => Number(values.count);
  return { ran, spec: { name: "demo", usage: "Usage: demo [--count N]", flags, read, run } };
};

describe("runWithFlags", () => {
  it.each([["--help"], ["-h"], ["--count", "3", "--help"]])(
    "%s prints the usage and exits 0 without running anything",
    async (...argv) => {
      const { ran, spec } = command();
      await runWithFlags(spec, argv);
      expect([out, ran, process.exitCode]).toEqual([["Usage: demo [--count N]"], [], 0]);
    },
  );

  it("refuses an unknown flag in one line with exit code 2, having done nothing", async () => {
    const { ran, spec } = command();
    await runWithFlags(spec, ["--bogus"]);
    const refused = ["demo: Unknown option '--bogus' (see --help)"];
    expect([ran, err, process.exitCode]).toEqual([[], refused, 2]);
  });

  it("runs with the flags read, its result the exit code; a positional only if it takes some", async () => {
    const { ran, spec } = command();
    await runWithFlags(spec, ["--count", "7"]);
    expect([ran, process.exitCode]).toEqual([[7], 0]);
    await runWithFlags(spec, ["extra"]);
    expect([ran, process.exitCode]).toEqual([[7], 2]);
    await runWithFlags({ ...spec, positionals: true, read: (_v, rest) => rest.length }, ["a"]);
    expect([ran, process.exitCode]).toEqual([[7, 1], 0]);
  });

  it.each([
    ["a StopError", new StopError("no way"), "demo: no way", 2],
    ["a StopError with its own exit code", new StopError("refused", 1), "demo: refused", 1],
    ["any other failure, without its stack", new TypeError("boom"), "demo: boom", 1],
  ])("says %s in one line, with its exit code", async (_, error, line, exitCode) => {
    vi.stubEnv("DEBUG", "");
    await runWithFlags(command(error).spec, []);
    expect([err, process.exitCode]).toEqual([[line], exitCode]);
  });
});

describe("the service npm start serves", () => {
  it("is on $PORT, 3000 when unset, for every flag left out", () => {
    expect(localUrl({})).toBe("http://localhost:3000");
    expect(localUrl({ PORT: "" }), "empty, as npm start reads it").toBe("http://localhost:3000");
    expect(localUrl({ PORT: "4100" })).toBe("http://localhost:4100");
    vi.stubEnv("PORT", "4200");
    expect(urlFlag("to", undefined)).toBe("http://localhost:4200");
    expect(urlFlag("to", "https://blog.example")).toBe("https://blog.example");
  });

  it.each(["abc", "0", "70000", "30.5"])("refuses PORT=%s in one line", (port) => {
    expect(() => localUrl({ PORT: port })).toThrow(
      new StopError(`PORT must be a port number from 1 to 65535, not "${port}"`),
    );
  });
});

describe("progress", () => {
  /** What a progress over `total` posts writes, at a terminal or not, ticked by `ticks`. */
  const drawn = (isTTY: boolean, total: number, ticks: (number | undefined)[]) => {
    const written: string[] = [];
    const write = (text: string) => void written.push(text);
    const stream = { isTTY, columns: 120, write, cursorTo: () => true, clearLine: () => true };
    const bar = progress(total, "posts", { stream: stream as unknown as NodeJS.WriteStream });
    for (const count of ticks) bar.tick(count);
    bar.end();
    return written.join("");
  };

  it("draws a bar with the count at a terminal, and plain lines elsewhere", () => {
    const bar = drawn(true, 4, [undefined, undefined]);
    expect(bar).toContain("2/4 posts");
    expect(bar).toMatch(/\[[█░]{30}\]/);
    const plain = drawn(false, 100, [100]);
    expect(plain).toContain("100/100 posts");
    for (const control of ["\r", "\u001b", "█"]) expect(plain).not.toContain(control);
  });
});
