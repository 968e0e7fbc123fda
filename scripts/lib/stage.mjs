// A deployed stage as the commands see it: its stack's outputs and, when the stack has the user
// pool (AUTH_USER_POOL=true), an access token for its deploy user. AWS SDK calls with the
// caller's own credentials, the SDK loaded only when called (so a command's --help works before
// npm install, and without it says to run it); every failure is a StopError saying what to do.
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { StopError, importWithPackages } from "./cli.mjs";

/** The service's name in serverless.yml: stacks are `<service>-<stage>`. */
export const SERVICE = "blog-post-api";
/** Whether a stack's outputs show the stage's own user pool (config/user-pool.cjs). */
const hasUserPool = (/** @type {Record<string, string>} */ outputs) =>
  Boolean(outputs.SignInClientId && outputs.UserPoolId && outputs.WriterGroup);

/** The user `npm run token` signs in as: one per stage, a member of the writers group. */
export const deployUser = (/** @type {string} */ stage) => `deploy@${SERVICE}-${stage}.invalid`;

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
 * An access token for the stage's deploy user, signed in with the caller's AWS credentials alone:
 * the user is created (and put in the writers group) when missing, given a new random password
 * that is used once and kept nowhere, and signed in through the sign-in client (AdminInitiateAuth).
 * The pool's scope trigger gives the token the writers' scopes.
 * @param {Record<string, string>} outputs @param {{ stage: string, region: string }} where
 */
export async function writerToken(outputs, { stage, region }) {
  const stack = `${SERVICE}-${stage}`;
  if (!hasUserPool(outputs)) {
    throw new StopError(
      `stack ${stack} has no user pool: deploy it with AUTH_USER_POOL=true, or get a ` +
        "token from the issuer AUTH_ISSUER_URL names",
    );
  }
  const { UserPoolId, SignInClientId, WriterGroup } = outputs;
  /** @type {typeof import("@aws-sdk/client-cognito-identity-provider")} */
  const cognito = await awsSdk("cognito-identity-provider");
  const client = new cognito.CognitoIdentityProviderClient({ region });
  const Username = deployUser(stage);
  // Cognito's default policy: upper and lower case, a digit and a symbol, 8 characters or more.
  const Password = `${randomBytes(24).toString("base64url")}aA1!`;
  const signedIn = await withClient(client, region, stack, async () => {
    const email = [
      { Name: "email", Value: Username },
      { Name: "email_verified", Value: "true" },
    ];
    const quiet = /** @type {const} */ ("SUPPRESS"); // no invitation mail to an address of no one
    const create = { UserPoolId, Username, MessageAction: quiet, UserAttributes: email };
    await client.send(new cognito.AdminCreateUserCommand(create)).catch((error) => {
      if (error?.name !== "UsernameExistsException") throw error;
    });
    const group = { UserPoolId, Username, GroupName: WriterGroup };
    await client.send(new cognito.AdminAddUserToGroupCommand(group));
    const password = { UserPoolId, Username, Password, Permanent: true };
    await client.send(new cognito.AdminSetUserPasswordCommand(password));
    return client.send(
      new cognito.AdminInitiateAuthCommand({
        UserPoolId,
        ClientId: SignInClientId,
        AuthFlow: /** @type {const} */ ("ADMIN_USER_PASSWORD_AUTH"),
        AuthParameters: { USERNAME: Username, PASSWORD: Password },
      }),
    );
  });
  const token = signedIn.AuthenticationResult?.AccessToken;
  if (!token) throw new StopError(`the pool ${UserPoolId} signed ${Username} in without a token`);
  return token;
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
