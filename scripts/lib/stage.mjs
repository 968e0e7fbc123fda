// A deployed stage as the commands see it: its stack's outputs and, when the stack has the user
// pool (AUTH_USER_POOL=true), an access token for its machine client. AWS SDK calls with the
// caller's own credentials, the SDK loaded only when called (so a command's --help works before
// npm install, and without it says to run it); every failure is a StopError saying what to do.
import { createRequire } from "node:module";
import { setTimeout as sleep } from "node:timers/promises";
import { StopError, importWithPackages } from "./cli.mjs";

/** The service's name in serverless.yml: stacks are `<service>-<stage>`. */
export const SERVICE = "blog-post-api";
/** How long the token endpoint may take, and the pause before asking again when patient. */
const TOKEN_TIMEOUT_MS = 10_000;
const RETRY_PAUSE_MS = 5_000;

/** Whether a stack's outputs show the stage's own user pool (config/user-pool.cjs). */
const hasUserPool = (/** @type {Record<string, string>} */ outputs) =>
  Boolean(outputs.TokenEndpoint && outputs.WriterClientId && outputs.UserPoolId);

/** The AWS SDK's client package `@aws-sdk/client-<name>`, loaded now. */
export const awsSdk = (/** @type {string} */ name) => importWithPackages(`@aws-sdk/client-${name}`);

/**
 * Runs `use`, then destroys the SDK client it uses; an SDK failure becomes one line that says
 * what to do (`stack`, if any, is the stack it was about).
 * @template T @param {{ destroy(): void }} client @param {string} region @param {string} stack
 * @param {() => Promise<T>} use
 */
export async function withClient(client, region, stack, use) {
  try {
    return await use();
  } catch (error) {
    const { name = "Error", message = String(error) } = /** @type {Error} */ (error);
    if (name === "CredentialsProviderError" || /credential/i.test(message)) {
      throw new StopError(
        "no AWS credentials found: set AWS_PROFILE (after `aws configure` or `aws sso login`) " +
          "or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
      );
    }
    if (stack && /does not exist/.test(message)) {
      throw new StopError(
        `no stack ${stack} in ${region}: deploy it with AUTH_USER_POOL=true npm run deploy -- ` +
          `--stage ${stack.slice(SERVICE.length + 1)} --region ${region}, or pass the right --stage and --region`,
      );
    }
    throw new StopError(`${name}: ${message}`);
  } finally {
    client.destroy();
  }
}

/** Resolves the caller's AWS credentials, without a call to AWS: none is a StopError at once. */
export async function requireCredentials(/** @type {string} */ region) {
  /** @type {typeof import("@aws-sdk/client-cloudformation")} */
  const { CloudFormationClient } = await awsSdk("cloudformation");
  const client = new CloudFormationClient({ region });
  await withClient(client, region, "", () => client.config.credentials());
}

/**
 * The outputs of the stage's stack, by key.
 * @param {{ stage: string, region: string }} where
 * @returns {Promise<Record<string, string>>}
 */
export async function stackOutputs({ stage, region }) {
  const stack = `${SERVICE}-${stage}`;
  /** @type {typeof import("@aws-sdk/client-cloudformation")} */
  const { CloudFormationClient, DescribeStacksCommand } = await awsSdk("cloudformation");
  const describe = new DescribeStacksCommand({ StackName: stack });
  const client = new CloudFormationClient({ region });
  const { Stacks = [] } = await withClient(client, region, stack, () => client.send(describe));
  const outputs = Stacks[0]?.Outputs ?? [];
  return Object.fromEntries(outputs.map((output) => [output.OutputKey, output.OutputValue]));
}

/**
 * An access token for the stage's machine client: its secret read from Cognito, traded at the
 * pool's token endpoint (client-credentials grant). `patienceMs`: how long to keep trying an
 * endpoint that does not answer yet (a new pool's domain can take a minute to resolve).
 * @param {Record<string, string>} outputs @param {{ stage: string, region: string }} where
 */
export async function writerToken(outputs, { stage, region }, { patienceMs = 0 } = {}) {
  const stack = `${SERVICE}-${stage}`;
  if (!hasUserPool(outputs)) {
    throw new StopError(
      `stack ${stack} has no user pool: deploy it with AUTH_USER_POOL=true, or get a ` +
        "token from the issuer AUTH_ISSUER_URL names",
    );
  }
  const { TokenEndpoint = "", WriterClientId, UserPoolId, WriteScope = "blog/write" } = outputs;
  /** @type {typeof import("@aws-sdk/client-cognito-identity-provider")} */
  const cognito = await awsSdk("cognito-identity-provider");
  const client = new cognito.CognitoIdentityProviderClient({ region });
  const ask = new cognito.DescribeUserPoolClientCommand({ UserPoolId, ClientId: WriterClientId });
  const { UserPoolClient } = await withClient(client, region, stack, () => client.send(ask));
  const secret = UserPoolClient?.ClientSecret;
  if (!secret) throw new StopError(`the client ${WriterClientId} has no secret`);
  const basic = Buffer.from(`${WriterClientId}:${secret}`).toString("base64");
  const giveUpAt = Date.now() + patienceMs;
  let answer;
  while (!answer) {
    answer = await fetch(TokenEndpoint, {
      method: "POST",
      // A form body: fetch sends it as application/x-www-form-urlencoded.
      headers: { authorization: `Basic ${basic}` },
      body: new URLSearchParams({ grant_type: "client_credentials", scope: WriteScope }),
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    }).catch(async (/** @type {Error} */ error) => {
      if (Date.now() + RETRY_PAUSE_MS > giveUpAt) {
        throw new StopError(`${TokenEndpoint}: ${error.message}`);
      }
      await sleep(RETRY_PAUSE_MS);
    });
  }
  const body = /** @type {{ access_token?: unknown, error?: string }} */ (
    await answer.json().catch(() => ({}))
  );
  if (!answer.ok || typeof body.access_token !== "string") {
    const why = body.error ?? "no access_token";
    throw new StopError(`the token endpoint answered ${answer.status}: ${why}`);
  }
  return body.access_token;
}

/**
 * How to check the stage after a deploy, from its outputs and the settings the deploy ran with:
 * the smoke's flags, and whether it gets a token from the stage's pool or runs without one; or,
 * for a stage whose tokens come from elsewhere, the command to print.
 * @param {Record<string, string>} outputs @param {NodeJS.ProcessEnv} env
 * @returns {{ flags: string[], token: "from-pool" | "none" } | { print: string }}
 */
export function smokePlan(outputs, env) {
  const flags = ["--url", outputs.ServiceEndpoint ?? "<the stage's URL>"];
  if (env.TIME_ZONE) flags.push("--time-zone", env.TIME_ZONE);
  // CORS is checked from the first of CORS_ORIGINS, and from any origin when that is `*`.
  // CORS_ORIGINS read as the stage reads it; loaded here, as only the deploy needs it.
  const cors = createRequire(import.meta.url)("../../config/cors.cjs");
  const [origin] = /** @type {string[]} */ (cors.readOrigins(env));
  if (origin) flags.push("--origin", origin === "*" ? "https://any-origin.example" : origin);
  if (hasUserPool(outputs)) return { flags, token: "from-pool" };
  const open = !env.AUTH_ISSUER_URL?.trim() && env.ALLOW_ANONYMOUS_WRITES === "true";
  if (open) return { flags, token: "none" };
  return {
    print:
      `Writes on this stage need a token from ${env.AUTH_ISSUER_URL || "your issuer"}; check the ` +
      `stage with: npm run smoke -- ${flags.join(" ")} --token <access token>`,
  };
}
