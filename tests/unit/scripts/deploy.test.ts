// What `npm run deploy` does after serverless deploy, from the stack's outputs and the settings.
import { describe, expect, it } from "vitest";
import { smokePlan } from "../../../scripts/lib/stage.mjs";

const URL = "https://abc123.execute-api.eu-west-1.amazonaws.com";
const ids = { SignInClientId: "client-1", UserPoolId: "eu-west-1_Pool", WriterGroup: "writers" };
const POOL = { ServiceEndpoint: URL, ...ids };
const OPEN = { ALLOW_ANONYMOUS_WRITES: "true", TIME_ZONE: "Europe/Paris" };

describe("smokePlan", () => {
  it("runs the smoke with the pool's token when the stack has the pool", () => {
    const plan = { flags: ["--url", URL], token: "from-pool" };
    expect(smokePlan(POOL, { AUTH_USER_POOL: "true" })).toEqual(plan);
  });

  it("runs it without a token when writes are open on purpose", () => {
    const flags = ["--url", URL, "--time-zone", "Europe/Paris"];
    expect(smokePlan({ ServiceEndpoint: URL }, { ...OPEN, CORS_ORIGINS: "*" })).toEqual({
      flags: [...flags, "--origin", "https://any-origin.example"],
      token: "none",
    });
  });

  it("prints the exact command when the tokens come from an issuer of the user's", () => {
    const origins = "https://blog.example, https://admin.example";
    const env = { ...OPEN, AUTH_ISSUER_URL: "https://issuer.example", CORS_ORIGINS: origins };
    expect(smokePlan({ ServiceEndpoint: URL }, env)).toEqual({
      print:
        "Writes on this stage need a token from https://issuer.example; check the stage with: " +
        `npm run smoke -- --url ${URL} --time-zone Europe/Paris --origin https://blog.example --token <access token>`,
    });
  });

  it("checks CORS from the first of CORS_ORIGINS, trimmed, and from none when it names none", () => {
    const flags = (CORS_ORIGINS: string) => smokePlan(POOL, { CORS_ORIGINS });
    expect(flags(" https://a.example ,https://b.example")).toMatchObject({
      flags: ["--url", URL, "--origin", "https://a.example"],
    });
    expect(flags(" , ")).toMatchObject({ flags: ["--url", URL] });
  });

  it("asks for the pool's three outputs before fetching a token", () => {
    const { UserPoolId: _, ...partial } = POOL;
    expect(smokePlan(partial, { AUTH_ISSUER_URL: "https://i.example" })).toHaveProperty("print");
  });
});
