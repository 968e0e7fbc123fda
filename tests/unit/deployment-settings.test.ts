// Unit tests: the deployment settings read by serverless.yml (config/*.cjs), without the CLI.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const { readAuth } = require("../../config/auth.cjs") as {
  readAuth(env: NodeJS.ProcessEnv): Record<string, unknown> | undefined;
};
const { openWritesProblem } = require("../../config/open-writes-guard.cjs") as {
  openWritesProblem(env: NodeJS.ProcessEnv): string | undefined;
};
const { readReservedConcurrency } = require("../../config/limits.cjs") as {
  readReservedConcurrency(env: NodeJS.ProcessEnv): Record<string, number>;
};

describe("readAuth", () => {
  it("is off without an issuer, whatever else is set", () => {
    expect(readAuth({ AUTH_AUDIENCE: "blog", AUTH_READS: "true" })).toBeUndefined();
    expect(readAuth({ AUTH_ISSUER_URL: "  " })).toBeUndefined();
  });

  it("reads a comma-separated audience, an optional scope and AUTH_READS", () => {
    expect(
      readAuth({
        AUTH_ISSUER_URL: "https://i.example",
        AUTH_AUDIENCE: " a, ,b ",
        AUTH_READS: "true",
      }),
    ).toEqual({
      issuerUrl: "https://i.example",
      audience: ["a", "b"],
      writeScope: undefined,
      reads: true,
    });
    expect(
      readAuth({ AUTH_ISSUER_URL: "https://i.example", AUTH_AUDIENCE: "a", AUTH_WRITE_SCOPE: "w" }),
    ).toMatchObject({ writeScope: "w", reads: false });
  });
});

describe("openWritesProblem", () => {
  it.each([
    [{}, /AUTH_ISSUER_URL is not set/],
    [{ ALLOW_ANONYMOUS_WRITES: "false" }, /AUTH_ISSUER_URL is not set/],
    [{ ALLOW_ANONYMOUS_WRITES: "yes" }, /ALLOW_ANONYMOUS_WRITES must be true or false/],
    [{ AUTH_AUDIENCE: "blog" }, /AUTH_ISSUER_URL is not set/],
  ])("refuses %o", (env, message) => {
    expect(openWritesProblem(env)).toMatch(message);
  });

  it.each([
    [{ ALLOW_ANONYMOUS_WRITES: "true" }],
    [{ AUTH_ISSUER_URL: "https://i.example", AUTH_AUDIENCE: "blog" }],
  ])("lets %o through", (env) => {
    expect(openWritesProblem(env)).toBeUndefined();
  });
});

describe("readReservedConcurrency", () => {
  it("maps each named function to its count", () => {
    expect(readReservedConcurrency({})).toEqual({});
    expect(readReservedConcurrency({ RESERVED_CONCURRENCY: "getPost=0, deletePost=3," })).toEqual({
      getPost: 0,
      deletePost: 3,
    });
  });

  it.each(["list=3", "listPosts", "listPosts=-1", "listPosts=2.5", "listPosts=many"])(
    "refuses %s",
    (entry) => {
      expect(() => readReservedConcurrency({ RESERVED_CONCURRENCY: entry })).toThrow(
        /RESERVED_CONCURRENCY entries must be <function>=<count>/,
      );
    },
  );
});
