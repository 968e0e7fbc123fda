// A serverless plugin: no deployment leaves writes open to the internet without someone saying so.
// `serverless deploy` stops before contacting AWS unless AUTH_USER_POOL=true, AUTH_ISSUER_URL is
// set, or ALLOW_ANONYMOUS_WRITES=true; `serverless package` only warns. Local runs are not concerned.
const { readAuth } = require("./auth.cjs");

/** Why writes would be open in `env`, or undefined when they are protected or meant to be open. */
function openWritesProblem(env = process.env) {
  if (readAuth(env)) return undefined;
  const allowed = (env.ALLOW_ANONYMOUS_WRITES ?? "").trim();
  if (allowed === "true") return undefined;
  if (allowed !== "" && allowed !== "false") {
    return `ALLOW_ANONYMOUS_WRITES must be true or false, not ${JSON.stringify(allowed)}.`;
  }
  return (
    "no authorizer is configured, so anyone on the internet could create, change and delete " +
    "every post. Require a token for POST, PUT and DELETE with AUTH_USER_POOL=true (the stage " +
    "gets its own Cognito user pool) or with AUTH_ISSUER_URL and AUTH_AUDIENCE (an issuer you " +
    "run; see docs/security.md), or set ALLOW_ANONYMOUS_WRITES=true to deploy with open writes " +
    "on purpose."
  );
}

class OpenWritesGuard {
  constructor(serverless, _options, utils) {
    this.hooks = {
      initialize: () => {
        const [command] = serverless.processedInput?.commands ?? [];
        if (command !== "deploy" && command !== "package") return;
        const problem = openWritesProblem();
        if (!problem) return;
        if (command === "deploy") {
          throw new serverless.classes.Error(`Refusing to deploy: ${problem}`, "OPEN_WRITES");
        }
        const warn = utils?.log?.warning ?? console.warn;
        warn(`This package has open writes: ${problem}`);
      },
    };
  }
}

module.exports = OpenWritesGuard;
module.exports.openWritesProblem = openWritesProblem;
