// `npm run token`: an access token for a stage's own user pool, alone on stdout (docs/deploying.md).
import { runWithFlags } from "./lib/cli.mjs";
import { stackOutputs, writerToken } from "./lib/stage.mjs";

const USAGE = `Usage: npm run -s token -- [options]

Prints an access token (valid 60 minutes, scopes blog/write and blog/read) of the deploy user of a
stage deployed with AUTH_USER_POOL=true, with your AWS credentials alone: reads the stack's
outputs, creates the user deploy@blog-post-api-<stage>.invalid in the writers group if missing,
gives it a new random password (kept nowhere) and signs it in through the pool's sign-in client.

  TOKEN=$(npm run -s token -- --stage prod)
  curl -H "authorization: Bearer $TOKEN" ...

Options:
  --stage S    the stage (default dev)
  --region R   its region (default us-east-1, as npm run deploy)
  -h, --help   this text

Exit codes: 0 the token is printed; 2 none could be had (no AWS credentials, no such stack, a
stack without the pool, a refusal), with one line saying what to do.`;

await runWithFlags({
  name: "token",
  usage: USAGE,
  flags: {
    stage: { type: "string", default: "dev" },
    region: { type: "string", default: "us-east-1" },
  },
  async run(where) {
    console.log(await writerToken(await stackOutputs(where), where));
    return 0;
  },
});
