// Unit: the settings the functions read at their start and config/ checks when packaging
// (lib/shared/settings.ts), each refused in one line that names it; and each rule that config/
// and lib/ share written in one file of theirs alone.
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  parseIdBlockSize,
  parseLogLevel,
  parseOrigins,
  parseSpendLimitUsd,
} from "../../../lib/shared/settings.js";

// Each setting: its value when unset, what it reads a value as, and the values it refuses, naming
// itself and its rule.
const SETTINGS = {
  LOG_LEVEL: {
    parse: parseLogLevel,
    unset: "info",
    reads: { " ": "info", " error ": "error", silent: "silent" },
    refuses: ["debug", "INFO", "warn"],
    rule: "info, error or silent",
  },
  ID_BLOCK_SIZE: {
    parse: parseIdBlockSize,
    unset: 1,
    reads: { " ": 1, "1": 1, " 100 ": 100, "10000": 10_000 },
    refuses: ["0", "-1", "10001", "1.5", "abc", "1e3", "0x10", "Infinity", "9007199254740993"],
    rule: "a whole number from 1 to 10000",
  },
  SPEND_LIMIT_USD: {
    parse: parseSpendLimitUsd,
    unset: 10,
    reads: {
      " ": 10,
      "0.05": 0.05,
      " 250.5 ": 250.5,
      "010": 10,
      off: undefined,
      " OFF ": undefined,
    },
    refuses: [
      ...["0", "0.00", "-5", "1e3", ".5", "5.", "$10", "10 USD", "NaN", "Infinity"],
      "9".repeat(400),
    ],
    rule: "a positive number of dollars, or off",
  },
};

describe.each(Object.entries(SETTINGS))("%s", (name, { parse, unset, reads, refuses, rule }) => {
  const read = parse as (setting: string | undefined) => unknown;
  it.each([[undefined, unset], ...Object.entries(reads)])("reads %j as %j", (setting, value) => {
    expect(read(setting)).toBe(value);
  });

  it.each(refuses)("refuses %j", (setting) => {
    expect(() => read(setting)).toThrow(`${name} must be ${rule}, not ${JSON.stringify(setting)}`);
  });
});

describe("CORS_ORIGINS", () => {
  it("is a trimmed list without blanks", () => {
    expect(parseOrigins(" https://a.example ,, https://b.example")).toEqual([
      "https://a.example",
      "https://b.example",
    ]);
    expect(parseOrigins(" * ")).toEqual(["*"]);
    expect(parseOrigins(undefined)).toEqual([]);
  });
});

describe("each rule config/ and lib/ share", () => {
  const root = fileURLToPath(new URL("../../..", import.meta.url));
  const files = [
    ...readdirSync(`${root}lib`, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts"))
      .map((file) => `lib/${file}`),
    ...readdirSync(`${root}config`)
      .filter((file) => file.endsWith(".cjs"))
      .map((file) => `config/${file}`),
  ];
  const texts = files.map((file) => [file, readFileSync(`${root}${file}`, "utf8")] as const);

  it.each([
    ["the metrics namespace", /"BlogPostApi"/, ["lib/shared/names.ts"]],
    ["the headers CORS lets a page read", /Location\W+ETag\W+Retry-After/, ["lib/shared/names.ts"]],
    ["the headers CORS lets a page send", /Authorization\W+Content-Type/, ["lib/shared/names.ts"]],
    ["the CORS_ORIGINS parser", /origin\.trim\(\)/, ["lib/shared/settings.ts"]],
    ["LOG_LEVEL's refusal", /LOG_LEVEL must be/, ["lib/shared/settings.ts"]],
    ["ID_BLOCK_SIZE's refusal", /ID_BLOCK_SIZE must be/, ["lib/shared/settings.ts"]],
    ["SPEND_LIMIT_USD's refusal", /SPEND_LIMIT_USD must be/, ["lib/shared/settings.ts"]],
    ["the API routes", /["'`]GET \/api\/post/, ["config/names.cjs"]],
    ["the API functions", /["'`]deletePost["'`]|\bdeletePost:/, ["config/names.cjs"]],
    ["DELIVERY_ATTEMPTS as a number", /DELIVERY_ATTEMPTS\s*=\s*\d/, []],
  ])("%s: in %j alone", (_rule, pattern, homes) => {
    expect(texts.filter(([, text]) => pattern.test(text)).map(([file]) => file)).toEqual(homes);
  });
});
