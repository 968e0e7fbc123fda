// `npm run webhook-secret`: a webhook subscriber's signing secret, kept in SSM Parameter Store
// (SecureString) where the delivery function reads it (docs/events.md).
import { randomBytes } from "node:crypto";
import { StopError, runWithFlags } from "./lib/cli.mjs";
import { SERVICE, awsSdk, withClient } from "./lib/stage.mjs";

const usage = `Usage: npm run -s webhook-secret -- --name N [--stage S] [--region R] [--rotate | --end-rotation]

Prints the signing secret (whsec_…) of the webhook subscriber N of a stage (WEBHOOK_SUBSCRIBERS
names it), read from SSM Parameter Store at /blog-post-api/<stage>/webhooks/<N>; makes a new
one there first when there is none. Needs AWS credentials allowed ssm:GetParameter and
ssm:PutParameter on that parameter.

  --name N         the subscriber's name in WEBHOOK_SUBSCRIBERS
  --stage S        the stage (default dev)
  --region R       its region (default us-east-1, as npm run deploy)
  --rotate         start a rotation: a new secret signs beside the old one; prints the new one
  --end-rotation   sign with the newest secret alone (once the subscriber checks it)
  -h, --help       this text

Exit codes: 0 the secret is printed; 2 it could not be (no credentials, a refusal), in one line.`;

await runWithFlags({
  name: "webhook-secret",
  usage,
  flags: {
    name: { type: "string", default: "" },
    stage: { type: "string", default: "dev" },
    region: { type: "string", default: "us-east-1" },
    rotate: { type: "boolean", default: false },
    "end-rotation": { type: "boolean", default: false },
  },
  read: (values) => {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(values.name)) {
      throw new StopError("--name must be the subscriber's name in WEBHOOK_SUBSCRIBERS");
    }
    if (values.rotate && values["end-rotation"]) {
      throw new StopError("--rotate and --end-rotation are two steps: give one");
    }
    const parameter = `/${SERVICE}/${values.stage}/webhooks/${values.name}`;
    return { parameter, region: values.region, rotate: values.rotate, end: values["end-rotation"] };
  },
  run: async ({ parameter, region, rotate, end }) => {
    /** @type {typeof import("@aws-sdk/client-ssm")} */
    const { GetParameterCommand, PutParameterCommand, SSMClient } = await awsSdk("ssm");
    const ssm = new SSMClient({ region });
    await withClient(ssm, region, "", async () => {
      const get = new GetParameterCommand({ Name: parameter, WithDecryption: true });
      const { Parameter } = await ssm.send(get).catch((error) => {
        if (error.name === "ParameterNotFound") return { Parameter: undefined };
        throw error;
      });
      // The newest secret comes first; during a rotation the old one follows it.
      const kept = Parameter?.Value ?? "";
      let secrets = kept.split(" ").filter(Boolean);
      if (secrets.length === 0 || rotate) {
        secrets = [`whsec_${randomBytes(32).toString("base64")}`, ...secrets.slice(0, 1)];
      } else if (end) secrets = secrets.slice(0, 1);
      if (secrets.join(" ") !== kept) {
        const put = { Name: parameter, Value: secrets.join(" "), Overwrite: true };
        await ssm.send(new PutParameterCommand({ ...put, Type: "SecureString" }));
      }
      console.log(secrets[0]);
    });
    return 0;
  },
});
