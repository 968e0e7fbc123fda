// Logging: one JSON object per line, so CloudWatch Logs Insights can query every field.
import type { Config } from "./config.js";

export type LogFields = Record<string, unknown>;

/** Writes structured log lines at or above the configured level. */
export interface Logger {
  info(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** A logger that writes JSON lines to standard output (CloudWatch on Lambda). */
export function createLogger(level: Config["logLevel"]): Logger {
  const write = (lvl: "INFO" | "ERROR", message: string, fields?: LogFields): void => {
    const line = { level: lvl, message, timestamp: new Date().toISOString(), ...fields };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  };
  return {
    info: (message, fields) => {
      if (level === "info") write("INFO", message, fields);
    },
    error: (message, fields) => {
      if (level !== "silent") write("ERROR", message, fields);
    },
  };
}
