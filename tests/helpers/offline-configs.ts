// Test helper: the serverless-offline configurations the HTTP tests share, one pool of instances
// each (tests/helpers/offline-pool.ts). A file that needs another setting starts its own.
import { AUTH_SETTINGS } from "./tokens.js";

/** The origin every shared instance allows, as a browser app's would be. */
export const SHARED_ORIGIN = "https://blog.example";

export const SHARED_CONFIGS = {
  /** No authorizer: anyone may write. A zone 5:45 ahead of UTC, so local time shows. */
  open: {
    timeZone: "Asia/Kathmandu",
    env: { LOG_LEVEL: "info", CORS_ORIGINS: SHARED_ORIGIN },
  },
  /** Writes need a token with the write scope (tests/helpers/tokens.ts); reads are open. */
  auth: {
    timeZone: "UTC",
    env: { ...AUTH_SETTINGS, LOG_LEVEL: "info", CORS_ORIGINS: SHARED_ORIGIN },
  },
} as const;

export type SharedConfig = keyof typeof SHARED_CONFIGS;
