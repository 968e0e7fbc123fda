// `npm run webhook-secret` through the AWS SDK against a stand-in for SSM Parameter Store on
// loopback: a secret made when missing and printed alone, kept on the next run, rotated (both
// then sign), the rotation ended; and one line, exit 2, without credentials.
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScript } from "../helpers/run-script.js";

/** The stand-in's parameters, by name. */
const parameters = new Map<string, { value: string; type: string }>();
let server: Server;
let base = "";

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const input = JSON.parse(body) as { Name: string; Value?: string; Type?: string };
      const target = String(request.headers["x-amz-target"]);
      const reply = (status: number, json: unknown) =>
        response
          .writeHead(status, { "content-type": "application/x-amz-json-1.1" })
          .end(JSON.stringify(json));
      if (target === "AmazonSSM.PutParameter") {
        parameters.set(input.Name, { value: input.Value ?? "", type: input.Type ?? "" });
        return reply(200, { Version: 1 });
      }
      const stored = parameters.get(input.Name);
      if (!stored) return reply(400, { __type: "ParameterNotFound", message: "" });
      return reply(200, {
        Parameter: { Name: input.Name, Value: stored.value, Type: stored.type },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

async function secretCommand(args: string[], credentials = true) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("AWS_")),
  );
  const settings = credentials
    ? {
        AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
        AWS_SECRET_ACCESS_KEY: "example",
        AWS_ENDPOINT_URL_SSM: base,
      }
    : { HOME: "/nonexistent", AWS_EC2_METADATA_DISABLED: "true" };
  return runScript("scripts/webhook-secret.mjs", args, { ...env, ...settings });
}

const NAME = "/blog-post-api/prod/webhooks/site";
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

describe("npm run webhook-secret", () => {
  it("makes a SecureString secret when there is none, prints it alone, and keeps it", async () => {
    const first = await secretCommand(["--name", "site", "--stage", "prod"]);
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout.trim()).toMatch(SECRET);
    expect(parameters.get(NAME)).toEqual({ value: first.stdout.trim(), type: "SecureString" });
    expect((await secretCommand(["--name", "site", "--stage", "prod"])).stdout).toBe(first.stdout);
  });

  it("rotates: the new secret signs beside the old one until the rotation ends", async () => {
    const old = parameters.get(NAME)?.value as string;
    const rotated = (
      await secretCommand(["--name", "site", "--stage", "prod", "--rotate"])
    ).stdout.trim();
    expect(rotated).toMatch(SECRET);
    expect(parameters.get(NAME)?.value).toBe(`${rotated} ${old}`);
    await secretCommand(["--name", "site", "--stage", "prod", "--end-rotation"]);
    expect(parameters.get(NAME)?.value).toBe(rotated);
  });

  it("says in one line what is wrong, exit 2", async () => {
    const missing = await secretCommand(["--stage", "prod"]);
    expect(missing).toMatchObject({
      code: 2,
      stderr: "webhook-secret: --name must be the subscriber's name in WEBHOOK_SUBSCRIBERS\n",
    });
    const bare = await secretCommand(["--name", "site"], false);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/^webhook-secret: no AWS credentials found.*\n$/);
  });
});
