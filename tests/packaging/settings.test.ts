// Every setting checked once (config/settings.cjs), by npm start and serverless.yml alike: each
// bad value refused in one line naming it, without a stack (other modules' wording: tests/unit/).
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { runServerless, templateEnv } from "../helpers/package.js";

const require = createRequire(import.meta.url);
const { checkSettings, SettingError } = require("../../config/settings.cjs") as {
  checkSettings: (env: NodeJS.ProcessEnv) => void;
  SettingError: new (message: string) => Error;
};

/** What checkSettings refuses `env` with, or undefined. */
function refusal(env: NodeJS.ProcessEnv) {
  try {
    checkSettings(env);
  } catch (error) {
    return error as Error;
  }
}

describe("checkSettings", () => {
  it("accepts no settings at all, and good ones", () => {
    expect(() => checkSettings({})).not.toThrow();
    const good = {
      PORT: "4000",
      DYNAMODB_PORT: "8100",
      TIME_ZONE: "Europe/Paris",
      LOG_LEVEL: "error",
      WAF_RATE_LIMIT: "off",
      LOG_RETENTION_DAYS: "90",
      ID_BLOCK_SIZE: "50",
      WEBHOOK_SUBSCRIBERS: "a=https://8.8.8.8/hook",
    };
    expect(() => checkSettings(good)).not.toThrow();
  });

  // The settings this file reads itself, with what each accepts.
  it.each([
    ["PORT", "abc", "PORT must be a port number from 1 to 65535"],
    ["DYNAMODB_PORT", "70000", "DYNAMODB_PORT must be a port number from 1 to 65535"],
    ["LAMBDA_PORT", "-1", "LAMBDA_PORT must be a port number"],
    ["TIME_ZONE", "Mars/Nowhere", "TIME_ZONE must be an IANA time zone such as Europe/Paris"],
    ["LOG_RETENTION_DAYS", "31", "LOG_RETENTION_DAYS must be one of CloudWatch's periods"],
    // Settings of the other modules (config/, lib/shared/settings.ts): asked of them here too.
    ["ID_BLOCK_SIZE", "0", "ID_BLOCK_SIZE"],
    ["LOG_LEVEL", "loud", "LOG_LEVEL"],
    ["WAF_RATE_LIMIT", "5", "WAF_RATE_LIMIT"],
    ["API_RATE_LIMIT", "fast", "API_RATE_LIMIT"],
  ])("refuses %s=%s in one line naming it, without a stack", (name, value, message) => {
    const refused = refusal({ [name]: value });
    expect(refused).toBeInstanceOf(SettingError);
    expect(refused?.message).toContain(message);
    expect(refused?.message).toContain(JSON.stringify(value));
    expect(refused?.message).not.toContain("\n");
    expect(refused?.stack).toBe("");
  });

  it("refuses WEBHOOK_SUBSCRIBERS the delivery would refuse", () => {
    const refused = refusal({ WEBHOOK_SUBSCRIBERS: "a=https://198.18.0.1/" });
    expect(refused).toBeInstanceOf(SettingError);
    expect(refused?.message).toMatch(/^WEBHOOK_SUBSCRIBERS: /);
  });
});

describe("npm start's webhook settings", () => {
  const secret = `whsec_${Buffer.alloc(24, 1).toString("base64")}`;
  it.each([
    [{ WEBHOOK_URL: "http://127.0.0.1:4000/" }, "WEBHOOK_URL needs WEBHOOK_SECRET=whsec_"],
    [{ WEBHOOK_URL: "http://127.0.0.1:4000/", WEBHOOK_SECRET: "whsec_short" }, '"whsec_short"'],
  ])("refuses %j", (env, message) => {
    expect(() => checkSettings(env)).toThrow(message);
  });

  it("accepts a URL with one secret or two, and no URL at all", () => {
    expect(() => checkSettings({ WEBHOOK_URL: "http://x/", WEBHOOK_SECRET: secret })).not.toThrow();
    const rotating = `${secret} ${secret.replace("AQ", "Ag")}`;
    expect(() =>
      checkSettings({ WEBHOOK_URL: "http://x/", WEBHOOK_SECRET: rotating }),
    ).not.toThrow();
    expect(() => checkSettings({ WEBHOOK_SECRET: "not checked without a URL" })).not.toThrow();
  });
});

describe("serverless.yml", () => {
  // `print` loads the template as `package` and `deploy` do, without packaging.
  const refusal = (settings: Record<string, string>) =>
    runServerless(["print", "--stage", "test"], templateEnv(settings)).then(
      () => "",
      (error: Error) => error.message,
    );

  // checkSettings' refusals are all this one, their wording above and in tests/unit/.
  it("refuses a bad setting before anything else, naming it, without a stack", async () => {
    const refused = await refusal({ TIME_ZONE: "Mars/Nowhere" });
    expect(refused).toContain("TIME_ZONE");
    expect(refused).not.toMatch(/^\s+at /m);
  });

  it("refuses a bad AUTH_POOL_DOMAIN, read where the pool's resources are made", async () => {
    expect(await refusal({ AUTH_USER_POOL: "true", AUTH_POOL_DOMAIN: "Blog" })).toContain(
      "AUTH_POOL_DOMAIN",
    );
  });
});
