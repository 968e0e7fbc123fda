// Configuration: environment read once per Lambda instance, failing fast when it is wrong.

/** Settings every handler needs, read from the environment. */
export interface Config {
  tableName: string;
  /** DynamoDB endpoint override (DynamoDB Local); undefined on AWS. */
  endpoint: string | undefined;
  region: string;
  logLevel: "info" | "error" | "silent";
}

/** Reads the configuration from an environment; throws when a required setting is missing. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const tableName = env.TABLE_NAME;
  if (!tableName) throw new Error("TABLE_NAME is not set");
  const logLevel = env.LOG_LEVEL ?? "info";
  if (logLevel !== "info" && logLevel !== "error" && logLevel !== "silent") {
    throw new Error(`LOG_LEVEL must be info, error or silent, not ${logLevel}`);
  }
  return {
    tableName,
    endpoint: env.AWS_ENDPOINT_URL_DYNAMODB || undefined,
    region: env.AWS_REGION || "us-east-1",
    logLevel,
  };
}
