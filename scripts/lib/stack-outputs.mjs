// What the commands read from a stage's stack outputs, without the AWS SDK (so a command can say
// "run npm install" before loading it).

/** The service's name in serverless.yml: stacks are `<service>-<stage>`. */
export const SERVICE = "blog-post-api";

/** Whether a stack's outputs show the stage's own user pool (config/user-pool.cjs). */
export const hasUserPool = (/** @type {Record<string, string>} */ outputs) =>
  Boolean(outputs.TokenEndpoint && outputs.WriterClientId && outputs.UserPoolId);
