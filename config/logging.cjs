// One level setting for the functions' own lines and Lambda's: LOG_LEVEL (info, error, silent)
// also sets the application log level of Lambda's JSON log format. Read by serverless.yml.
const LAMBDA_LEVELS = { info: "INFO", error: "ERROR", silent: "FATAL" };

/** Lambda's `applicationLogLevel` for LOG_LEVEL; throws on a level the functions do not know. */
function applicationLogLevel(env = process.env) {
  const level = (env.LOG_LEVEL ?? "").trim() || "info";
  const lambdaLevel = LAMBDA_LEVELS[level];
  if (!lambdaLevel)
    throw new Error(`LOG_LEVEL must be info, error or silent, not ${JSON.stringify(level)}`);
  return lambdaLevel;
}

module.exports = {
  applicationLogLevel: () => applicationLogLevel(),
  readApplicationLogLevel: applicationLogLevel,
};
