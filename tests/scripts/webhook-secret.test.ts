// `npm run webhook-secret` through the AWS SDK against a stand-in for SSM Parameter Store on
// loopback: a secret made when missing and printed alone, kept on the next run, rotated (both
// then sign), the rotation ended; and one line, exit 2, without credentials.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScript } from "../helpers/run-script.js";
import { serveBodies, withoutAws } from "./servers.js";

/** The stand-in's parameters, by name. */
const parameters = new Map<string, { value: string; type: string }>();
let ssm: Awaited<ReturnType<typeof serveBodies>>;

beforeAll(async () => {
  ssm = await serveBodies((request, body, response) => {
    const input = JSON.parse(body) as { Name: string; Value?: string; Type?: string };
    const reply = (status: number, json: unknown) =>
      response
        .writeHead(status, { "content-type": "application/x-amz-json-1.1" })
        .end(JSON.stringify(json));
    if (request.headers["x-amz-target"] === "AmazonSSM.PutParameter") {
      parameters.set(input.Name, { value: input.Value ?? "", type: input.Type ?? "" });
      return reply(200, { Version: 1 });
    }
    const stored = parameters.get(input.Name);
    if (!stored) return reply(400, { __type: "ParameterNotFound", message: "" });
    return reply(200, { Parameter: { Name: input.Name, Value: stored.value, Type: stored.type } });
  });
});
afterAll(() => ssm?.close());

function secretCommand(args: string[], credentials = true) {
  const settings = credentials
    ? {
        AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
        AWS_SECRET_ACCESS_KEY: "example",
        AWS_ENDPOINT_URL_SSM: ssm.url,
      }
    : { HOME: "/nonexistent", AWS_EC2_METADATA_DISABLED: "true" };
  return runScript("scripts/webhook-secret.mjs", args, withoutAws(settings));
}

const NAME = "/blog-post-api/prod/webhooks/site";
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const SITE = ["--name", "site", "--stage", "prod"];

describe("npm run webhook-secret", () => {
  it("makes a SecureString secret when there is none, prints it alone, and keeps it", async () => {
    const first = await secretCommand(SITE);
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout.trim()).toMatch(SECRET);
    expect(parameters.get(NAME)).toEqual({ value: first.stdout.trim(), type: "SecureString" });
    expect((await secretCommand(SITE)).stdout).toBe(first.stdout);
  });

  it("rotates: the new secret signs beside the old one until the rotation ends", async () => {
    const old = parameters.get(NAME)?.value as string;
    const rotated = (await secretCommand([...SITE, "--rotate"])).stdout.trim();
    expect(rotated).toMatch(SECRET);
    expect(parameters.get(NAME)?.value).toBe(`${rotated} ${old}`);
    await secretCommand([...SITE, "--end-rotation"]);
    expect(parameters.get(NAME)?.value).toBe(rotated);
  });

  it("says in one line what is wrong, exit 2", async () => {
    expect(await secretCommand(["--stage", "prod"])).toMatchObject({
      code: 2,
      stderr: "webhook-secret: --name must be the subscriber's name in WEBHOOK_SUBSCRIBERS\n",
    });
    const bare = await secretCommand(["--name", "site"], false);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/^webhook-secret: no AWS credentials found.*\n$/);
  });
});
