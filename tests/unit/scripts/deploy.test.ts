// What `npm run deploy` does after serverless deploy, from the stack's outputs and the settings.
import { describe, expect, it } from "vitest";
import { smokePlan } from "../../../scripts/lib/stage.mjs";

const URL = "https://abc123.execute-api.eu-west-1.amazonaws.com";
const POOL = {
  ServiceEndpoint: URL,
  SignInClientId: "client-1",
  UserPoolId: "eu-west-1_Pool",
  WriterGroup: "writers",
};

describe("smokePlan", () => {
  it("runs the smoke with the pool's token when the stack has the pool", () => {
    expect(smokePlan(POOL, { AUTH_USER_POOL: "true" })).toEqual({
      flags: ["--url", URL],
      token: "from-pool",
    });
  });

  it("runs it without a token when writes are open on purpose", () => {
    const env = { ALLOW_ANONYMOUS_WRITES: "true", TIME_ZONE: "Europe/Paris", CORS_ORIGINS: "*" };
    expect(smokePlan({ ServiceEndpoint: URL }, env)).toEqual({
      flags: [
        "--url",
        URL,
        "--time-zone",
        "Europe/Paris",
        "--origin",
        "https://any-origin.example",
      ],
      token: "none",
    });
  });

  it("prints the exact command when the tokens come from an issuer of the user's", () => {
    const plan = smokePlan(
      { ServiceEndpoint: URL },
      {
        AUTH_ISSUER_URL: "https://issuer.example",
        TIME_ZONE: "Europe/Paris",
        ALLOW_ANONYMOUS_WRITES: "true",
        CORS_ORIGINS: "https://blog.example, https://admin.example",
      },
    );
    expect(plan).toEqual({
      print:
        "Writes on this stage need a token from https://issuer.example; check the stage with: " +
        `npm run smoke -- --url ${URL} --time-zone Europe/Paris --origin https://blog.example --token <access token>`,
    });
  });

  it("asks for the pool's three outputs before fetching a token", () => {
    const { UserPoolId: _, ...partial } = POOL;
    expect(smokePlan(partial, { AUTH_ISSUER_URL: "https://i.example" })).toHaveProperty("print");
  });
});

describe("smokePlan's --origin", () => {
  /** The origin the plan checks CORS from, if any. */
  const originOf = (env: NodeJS.ProcessEnv) => {
    const plan = smokePlan(POOL, env);
    const flags = "flags" in plan ? plan.flags : [];
    const at = flags.indexOf("--origin");
    return at < 0 ? undefined : flags[at + 1];
  };

  it("is the first of CORS_ORIGINS, any origin for *, and none without CORS", () => {
    expect(originOf({ CORS_ORIGINS: " https://a.example ,https://b.example" })).toBe(
      "https://a.example",
    );
    expect(originOf({ CORS_ORIGINS: "*" })).toBe("https://any-origin.example");
    expect(originOf({ CORS_ORIGINS: " , " })).toBeUndefined();
    expect(originOf({})).toBeUndefined();
  });
});
