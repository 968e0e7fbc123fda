// One level setting for the functions' own lines and Lambda's: LOG_LEVEL (info, error, silent)
// also sets the application log level of Lambda's JSON log format. Read by serverless.yml; the
// level is parsed as the functions parse it (lib/shared/settings.ts).
const { parseLogLevel } = require("../lib/shared/settings.ts");

const LAMBDA_LEVELS = { info: "INFO", error: "ERROR", silent: "FATAL" };

/** Lambda's `applicationLogLevel` for LOG_LEVEL; throws on a level the functions do not know. */
const applicationLogLevel = (env = process.env) => LAMBDA_LEVELS[parseLogLevel(env.LOG_LEVEL)];

module.exports = {
  applicationLogLevel: () => applicationLogLevel(),
  readApplicationLogLevel: applicationLogLevel,
};
