// A deployed stage as the commands see it: its stack's outputs and, when the stack has the user
// pool (AUTH_USER_POOL=true), an access token for its machine client. AWS SDK calls with the
// caller's own credentials; every failure is a StopError that says what to do, in one line.
import { CloudFormationClient, DescribeStacksCommand } from "@aws-sdk/client-cloudformation";
import {
  CognitoIdentityProviderClient,
  DescribeUserPoolClientCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { StopError } from "./cli.mjs";
import { SERVICE, hasUserPool } from "./stack-outputs.mjs";

// The SDK's notice that later versions will need Node 22 would bury a command's one line; the
// commands run on the Node versions package.json's engines allow.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

/** How long the token endpoint may take, and the pause before asking again when patient. */
const TOKEN_TIMEOUT_MS = 10_000;
const RETRY_PAUSE_MS = 5_000;

/** An SDK failure as one line that says what to do. */
function awsProblem(
  /** @type {unknown} */ error,
  /** @type {string} */ stack,
  /** @type {string} */ region,
) {
  const { name = "Error", message = String(error) } = /** @type {Error} */ (error);
  if (name === "CredentialsProviderError" || /credential/i.test(message)) {
    return new StopError(
      "no AWS credentials found: set AWS_PROFILE (after `aws configure` or `aws sso login`) " +
        "or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
    );
  }
  if (/does not exist/.test(message)) {
    return new StopError(
      `no stack ${stack} in ${region}: deploy it with AUTH_USER_POOL=true npm run deploy -- ` +
        `--stage ${stack.slice(SERVICE.length + 1)} --region ${region}, or pass the right --stage and --region`,
    );
  }
  return new StopError(`${name}: ${message}`);
}

/** Resolves the caller's AWS credentials, without a call to AWS: none is a StopError at once. */
export async function requireCredentials(/** @type {string} */ region) {
  const client = new CloudFormationClient({ region });
  try {
    await client.config.credentials();
  } catch (error) {
    throw awsProblem(error, "", region);
  } finally {
    client.destroy();
  }
}

/**
 * The outputs of the stage's stack, by key.
 * @param {{ stage: string, region: string }} where
 * @returns {Promise<Record<string, string>>}
 */
export async function stackOutputs({ stage, region }) {
  const stack = `${SERVICE}-${stage}`;
  const client = new CloudFormationClient({ region });
  try {
    const { Stacks = [] } = await client.send(new DescribeStacksCommand({ StackName: stack }));
    /** @type {Record<string, string>} */
    const outputs = {};
    for (const { OutputKey, OutputValue } of Stacks[0]?.Outputs ?? []) {
      if (OutputKey && OutputValue !== undefined) outputs[OutputKey] = OutputValue;
    }
    return outputs;
  } catch (error) {
    throw awsProblem(error, stack, region);
  } finally {
    client.destroy();
  }
}

/**
 * An access token for the stage's machine client: its secret read from Cognito, traded at the
 * pool's token endpoint (client-credentials grant) for a token carrying the write scope.
 * @param {Record<string, string>} outputs
 * @param {{ stage: string, region: string }} where
 * @param {{ patienceMs?: number }} [options] how long to keep trying an endpoint that does not
 *   answer yet (a new pool's domain can take a minute to resolve); by default, not at all
 */
export async function writerToken(outputs, { stage, region }, { patienceMs = 0 } = {}) {
  if (!hasUserPool(outputs)) {
    throw new StopError(
      `stack ${SERVICE}-${stage} has no user pool: deploy it with AUTH_USER_POOL=true, or get a ` +
        "token from the issuer AUTH_ISSUER_URL names",
    );
  }
  const client = new CognitoIdentityProviderClient({ region });
  let secret;
  try {
    const { UserPoolClient } = await client.send(
      new DescribeUserPoolClientCommand({
        UserPoolId: outputs.UserPoolId,
        ClientId: outputs.WriterClientId,
      }),
    );
    secret = UserPoolClient?.ClientSecret;
  } catch (error) {
    throw awsProblem(error, `${SERVICE}-${stage}`, region);
  } finally {
    client.destroy();
  }
  if (!secret) throw new StopError(`the client ${outputs.WriterClientId} has no secret`);
  const basic = Buffer.from(`${outputs.WriterClientId}:${secret}`).toString("base64");
  const giveUpAt = Date.now() + patienceMs;
  let answer;
  for (;;) {
    try {
      answer = await fetch(/** @type {string} */ (outputs.TokenEndpoint), {
        method: "POST",
        headers: {
          authorization: `Basic ${basic}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({
          grant_type: "client_credentials",
          scope: outputs.WriteScope ?? "blog/write",
        }),
        signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
      });
      break;
    } catch (error) {
      if (Date.now() + RETRY_PAUSE_MS > giveUpAt) {
        throw new StopError(`${outputs.TokenEndpoint}: ${/** @type {Error} */ (error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
    }
  }
  const body = /** @type {{ access_token?: unknown, error?: string }} */ (
    await answer.json().catch(() => ({}))
  );
  if (!answer.ok || typeof body.access_token !== "string") {
    throw new StopError(
      `the token endpoint answered ${answer.status}: ${body.error ?? "no access_token"}`,
    );
  }
  return /** @type {string} */ (body.access_token);
}
