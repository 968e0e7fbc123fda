// `npm run token` through the AWS SDK against stand-ins for CloudFormation and Cognito on loopback
// (the real services are not reachable from the tests), and with no credentials at all: a token
// on standard output, or one line saying what to do.
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScript } from "../helpers/run-script.js";
import { serveBodies, withoutAws } from "./servers.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const CLIENT_ID = "sign-in-client-1";
const POOL_ID = "eu-west-1_Pool";

/** Each Cognito call the stand-in was sent: its operation and input. */
const cognitoCalls: { operation: string; input: Record<string, unknown> }[] = [];
/** Whether the stand-in's pool has the deploy user yet. */
let userExists = false;
let aws: Awaited<ReturnType<typeof serveBodies>>;

/** Each stack's outputs, as DescribeStacks lists them. */
const STACKS: Record<string, Record<string, string>> = {
  "blog-post-api-prod": {
    ServiceEndpoint: "https://api.example",
    UserPoolId: POOL_ID,
    SignInClientId: CLIENT_ID,
    WriterGroup: "writers",
    WriteScope: "blog/write",
  },
  "blog-post-api-open": { ServiceEndpoint: "https://api.example" },
};

/** DescribeStacks as CloudFormation answers it (query protocol, XML), per stack name. */
function describeStacks(stackName: string): { status: number; xml: string } {
  const outputs = STACKS[stackName];
  if (!outputs) {
    return {
      status: 400,
      xml: `<ErrorResponse><Error><Type>Sender</Type><Code>ValidationError</Code><Message>Stack with id ${stackName} does not exist</Message></Error><RequestId>1</RequestId></ErrorResponse>`,
    };
  }
  const members = Object.entries(outputs).map(
    ([key, value]) =>
      `<member><OutputKey>${key}</OutputKey><OutputValue>${value}</OutputValue></member>`,
  );
  return {
    status: 200,
    xml: `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member><StackName>${stackName}</StackName><StackStatus>CREATE_COMPLETE</StackStatus><CreationTime>2026-01-01T00:00:00Z</CreationTime><Outputs>${members.join("")}</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></DescribeStacksResponse>`,
  };
}

beforeAll(async () => {
  aws = await serveBodies((request, body, response) => {
    const target = String(request.headers["x-amz-target"]);
    if (!target.startsWith("AWSCognitoIdentityProviderService.")) {
      const { status, xml } = describeStacks(new URLSearchParams(body).get("StackName") ?? "");
      return response.writeHead(status, { "content-type": "text/xml" }).end(xml);
    }
    const operation = target.split(".")[1] ?? "";
    cognitoCalls.push({ operation, input: JSON.parse(body) as Record<string, unknown> });
    const json = (status: number, answer: object, type?: string) => {
      const headers = { "content-type": "application/x-amz-json-1.1" };
      response.writeHead(status, type ? { ...headers, "x-amzn-errortype": type } : headers);
      response.end(JSON.stringify(answer));
    };
    if (operation === "AdminCreateUser" && userExists) {
      json(400, { message: "User account already exists" }, "UsernameExistsException");
    } else if (operation === "AdminInitiateAuth") {
      json(200, { AuthenticationResult: { AccessToken: "eyJ.token.here", ExpiresIn: 3600 } });
    } else {
      if (operation === "AdminCreateUser") userExists = true;
      json(200, {});
    }
  });
});

afterAll(() => aws?.close());

/** No ~/.aws files, and no instance metadata service to ask (the tests stay on loopback). */
const bareEnv = (settings: Record<string, string>) =>
  withoutAws({ HOME: "/nonexistent", AWS_EC2_METADATA_DISABLED: "true", ...settings });

const token = (args: string[], settings: Record<string, string>) =>
  runScript("scripts/token.mjs", args, bareEnv(settings));

const standIns = () => ({
  AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
  AWS_SECRET_ACCESS_KEY: "example",
  AWS_ENDPOINT_URL_CLOUDFORMATION: aws.url,
  AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: aws.url,
});

/** Expects the one line, alone on standard error, and exit code 2. */
function expectOneLine(run: Awaited<ReturnType<typeof token>>, message: RegExp) {
  expect(run).toMatchObject({ code: 2, stdout: "" });
  expect(run.stderr).toMatch(message);
  expect(run.stderr.trim().split("\n")).toHaveLength(1);
}

describe("npm run token", () => {
  it("creates the deploy user once, and prints its access token, alone, each time", async () => {
    for (const run of [1, 2]) {
      cognitoCalls.length = 0;
      const done = await token(["--stage", "prod", "--region", "eu-west-1"], standIns());
      expect(done).toEqual({ code: 0, stdout: "eyJ.token.here\n", stderr: "" });
      const operations = cognitoCalls.map((call) => call.operation).join(" ");
      expect(operations, `run ${run}`).toBe(
        "AdminCreateUser AdminAddUserToGroup AdminSetUserPassword AdminInitiateAuth",
      );
    }
    const [create, group, password, signIn] = cognitoCalls.map((call) => call.input);
    const Username = "deploy@blog-post-api-prod.invalid";
    expect(create).toMatchObject({ UserPoolId: POOL_ID, Username, MessageAction: "SUPPRESS" });
    expect(group).toEqual({ UserPoolId: POOL_ID, Username, GroupName: "writers" });
    expect(password).toMatchObject({ UserPoolId: POOL_ID, Username, Permanent: true });
    // A new random password every run, used once to sign in, and never printed.
    const secret = (password as { Password: string }).Password;
    expect(secret).toMatch(/^[\w-]{32}aA1!$/);
    expect(signIn).toEqual({
      UserPoolId: POOL_ID,
      ClientId: CLIENT_ID,
      AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
      AuthParameters: { USERNAME: Username, PASSWORD: secret },
    });
  });

  it.each([
    [
      ["--stage", "ghost"],
      /^token: no stack blog-post-api-ghost in us-east-1: deploy it with AUTH_USER_POOL=true/,
    ],
    [
      ["--stage", "open"],
      /^token: stack blog-post-api-open has no user pool: deploy it with AUTH_USER_POOL=true/,
    ],
    [["--stage"], /^token: Option '--stage <value>' argument missing \(see --help\)/],
  ])("for %j says what to do in one line and exits 2", async (args, message) => {
    expectOneLine(await token(args, standIns()), message);
  });

  it("without AWS credentials, or before npm install, says so in one line and exits 2", async () => {
    const noCredentials = await token(["--stage", "prod"], {});
    expectOneLine(noCredentials, /^token: no AWS credentials found: set AWS_PROFILE/);
    const bare = await mkdtemp(join(tmpdir(), "blog-post-token-bare-"));
    try {
      await cp(join(root, "scripts"), join(bare, "scripts"), { recursive: true });
      const run = await runScript("scripts/token.mjs", [], bareEnv({}), 30_000, bare);
      expectOneLine(run, /^token: @aws-sdk\/client-\S+ is not installed: run npm install/);
    } finally {
      await rm(bare, { recursive: true, force: true });
    }
  });
});
