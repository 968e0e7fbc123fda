// The functions' settings as both sides read them: config/*.cjs when packaging (serverless.yml
// refuses a bad value there) and lib/app/config.ts at an instance's start, one parser each, so a
// value packaging accepts never fails an instance. Unset and blank are the same; blanks around a
// value are dropped. config/ requires this file and Node strips its types without rewriting
// import paths, so it keeps to erasable syntax and imports nothing.

/** What LOG_LEVEL takes: a line per request, failures only, or no line at all. */
export const LOG_LEVELS = ["info", "error", "silent"] as const;

/** SPEND_LIMIT_USD when unset: the stage's monthly spending limit, in US dollars. */
export const DEFAULT_SPEND_LIMIT_USD = 10;

/** A setting's value without the blanks around it; "" when unset. */
const trimmed = (setting: string | undefined) => (setting ?? "").trim();

/** LOG_LEVEL: one of LOG_LEVELS, info when unset; throws on any other. */
export function parseLogLevel(setting: string | undefined): (typeof LOG_LEVELS)[number] {
  const level = trimmed(setting) || "info";
  const known = LOG_LEVELS.find((name) => name === level);
  if (known === undefined) {
    throw new Error(`LOG_LEVEL must be info, error or silent, not ${JSON.stringify(setting)}`);
  }
  return known;
}

/** ID_BLOCK_SIZE: the ids an instance reserves per counter call, 1 (when unset) to 10000. */
export function parseIdBlockSize(setting: string | undefined): number {
  const digits = trimmed(setting);
  if (digits === "") return 1;
  const size = Number(digits);
  if (!/^\d+$/.test(digits) || size < 1 || size > 10_000) {
    throw new Error(
      `ID_BLOCK_SIZE must be a whole number from 1 to 10000, not ${JSON.stringify(setting)}`,
    );
  }
  return size;
}

/**
 * SPEND_LIMIT_USD: the stage's monthly spending limit in US dollars, plain digits with an optional
 * fraction (`0.05`, `250.5`); DEFAULT_SPEND_LIMIT_USD when unset, undefined (no metering) for
 * `off` in any case. Exponents are refused, so the text the functions get reads as written.
 */
export function parseSpendLimitUsd(setting: string | undefined): number | undefined {
  const text = trimmed(setting);
  if (text === "") return DEFAULT_SPEND_LIMIT_USD;
  if (text.toLowerCase() === "off") return undefined;
  const dollars = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(dollars > 0) || !Number.isFinite(dollars)) {
    throw new Error(
      `SPEND_LIMIT_USD must be a positive number of dollars, or off, not ${JSON.stringify(setting)}`,
    );
  }
  return dollars;
}

/** CORS_ORIGINS: the allowed origins, comma-separated, without blanks; `["*"]` for any, `[]` off. */
export function parseOrigins(setting: string | undefined): string[] {
  return trimmed(setting)
    .split(",")
    .map((origin) => origin.trim())
    .filter(Boolean);
}
