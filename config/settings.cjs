// Every setting checked once, here, before anything is built or started: `npm start` calls
// checkSettings, and serverless.yml resolves `stage` from this file first of all (osls reads the
// stage before any other property), so `serverless print`, `package` and `deploy` refuse a bad
// value at the same point. Each setting's own module keeps what it accepts (lib/shared/settings.ts
// for those the functions read at their start too); this file asks them all.
const { readApplicationLogLevel } = require("./logging.cjs");
const { readRateLimit } = require("./waf.cjs");
const { positiveInteger, readReservedConcurrency } = require("./limits.cjs");
const { readAuth } = require("./auth.cjs");
const { readAlarmSettings } = require("./alarms.cjs");
const { readOrigins } = require("./cors.cjs");
const { readStageSettings } = require("./rest-stage.cjs");
const { readSubscribers } = require("./events.cjs");
// The functions' own parsers, so a value accepted here never fails an instance's start.
const { parseIdBlockSize, parseSpendLimitUsd } = require("../lib/shared/settings.ts");

/** The retention periods CloudWatch Logs accepts, in days. */
const RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288,
  3653,
];

/** A setting refused: one line that names it and what it accepts, without a stack. */
class SettingError extends Error {
  constructor(message) {
    super(message);
    this.name = "SettingError";
    // osls prints a rejection's stack when it has one; this message is the whole story.
    this.stack = "";
  }
  toString() {
    return this.message;
  }
}

/** A TCP port setting: its number, or undefined when unset (empty or blank). */
function readPort(name, env = process.env) {
  const raw = (env[name] ?? "").trim();
  if (raw === "") return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || value > 65535) {
    throw new Error(`${name} must be a port number from 1 to 65535, not ${JSON.stringify(raw)}`);
  }
  return value;
}

/** TIME_ZONE, when set: an IANA zone this Node (and so Lambda's) knows. */
function timeZone(env) {
  const zone = (env.TIME_ZONE ?? "").trim();
  if (zone === "") return;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
  } catch {
    throw new Error(
      `TIME_ZONE must be an IANA time zone such as Europe/Paris, not ${JSON.stringify(zone)}`,
    );
  }
}

/** LOG_RETENTION_DAYS, when set: one of CloudWatch's periods. */
function logRetention(env) {
  const days = (env.LOG_RETENTION_DAYS ?? "").trim();
  if (days !== "" && !RETENTION_DAYS.includes(Number(days))) {
    throw new Error(
      `LOG_RETENTION_DAYS must be one of CloudWatch's periods (${RETENTION_DAYS.join(", ")}), not ${JSON.stringify(days)}`,
    );
  }
}

/**
 * The API functions' SPEND_LIMIT_USD, normalized: `off`, or the dollars as written (a default
 * when unset), which the functions read back to the same number.
 */
function spendLimitSetting(env = process.env) {
  const dollars = parseSpendLimitUsd(env.SPEND_LIMIT_USD);
  if (dollars === undefined) return "off";
  return (env.SPEND_LIMIT_USD ?? "").trim() || String(dollars);
}

/**
 * WEBHOOK_URL and WEBHOOK_SECRET, `npm start`'s deliveries: with a URL, its subscriber's secrets,
 * whsec_<base64> each, space-separated. The URL itself is checked where it is used
 * (lib/events/webhook-sender.ts's refusedUrl, which allows http and loopback only locally).
 */
function localWebhook(env) {
  if ((env.WEBHOOK_URL ?? "").trim() === "") return;
  const secrets = (env.WEBHOOK_SECRET ?? "").split(" ").filter(Boolean);
  if (secrets.length === 0) {
    throw new Error(
      "WEBHOOK_URL needs WEBHOOK_SECRET=whsec_<base64> (npm run listen -- --new-secret)",
    );
  }
  const bad = secrets.find((secret) => !/^whsec_[A-Za-z0-9+/]{22,}={0,2}$/.test(secret));
  if (bad !== undefined) {
    throw new Error(
      `WEBHOOK_SECRET must be whsec_ and at least 16 bytes in base64, not ${JSON.stringify(bad)}`,
    );
  }
}

/** Every check, in the order docs/configuration.md lists the settings. */
const CHECKS = [
  (env) => readPort("PORT", env),
  (env) => readPort("DYNAMODB_PORT", env),
  (env) => readPort("LAMBDA_PORT", env),
  timeZone,
  readApplicationLogLevel,
  (env) => parseIdBlockSize(env.ID_BLOCK_SIZE),
  spendLimitSetting,
  readOrigins,
  readAuth,
  readRateLimit,
  readStageSettings,
  (env) => positiveInteger("TABLE_MAX_READ_UNITS", env),
  (env) => positiveInteger("TABLE_MAX_WRITE_UNITS", env),
  readReservedConcurrency,
  readAlarmSettings,
  logRetention,
  readSubscribers,
  localWebhook,
];

/** Checks every setting in `env`; the first bad one is a SettingError. */
function checkSettings(env = process.env) {
  for (const check of CHECKS) {
    try {
      check(env);
    } catch (error) {
      throw new SettingError(error instanceof Error ? error.message : String(error));
    }
  }
}

module.exports = {
  SettingError,
  checkSettings,
  readPort,
  spendLimitSetting,
  /** The five API functions' SPEND_LIMIT_USD (serverless.yml). */
  spendLimitUsd: () => spendLimitSetting(),
  /** serverless.yml's provider.stage: --stage (dev by default), once every setting is checked. */
  stage: ({ options }) => {
    checkSettings();
    return options.stage ?? "dev";
  },
};
