// Every setting checked once (config/settings.cjs), by npm start and by serverless.yml alike:
// each bad value refused in one line that names it and what it accepts, without a stack.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { runServerless, templateEnv } from "../helpers/package.js";

const require = createRequire(import.meta.url);
const { checkSettings, SettingError } = require("../../config/settings.cjs") as {
  checkSettings: (env: NodeJS.ProcessEnv) => void;
  SettingError: new (message: string) => Error;
};

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
    };
    expect(() => checkSettings(good)).not.toThrow();
  });

  it.each([
    ["PORT", "abc", "PORT must be a port number from 1 to 65535"],
    ["DYNAMODB_PORT", "70000", "DYNAMODB_PORT must be a port number from 1 to 65535"],
    ["LAMBDA_PORT", "-1", "LAMBDA_PORT must be a port number"],
    ["TIME_ZONE", "Mars/Nowhere", "TIME_ZONE must be an IANA time zone such as Europe/Paris"],
    ["LOG_LEVEL", "loud", "LOG_LEVEL must be info, error or silent"],
    ["WAF_RATE_LIMIT", "5", "WAF_RATE_LIMIT must be off or a whole number"],
    ["ID_BLOCK_SIZE", "0", "ID_BLOCK_SIZE must be a whole number from 1 to 10000"],
    ["LOG_RETENTION_DAYS", "31", "LOG_RETENTION_DAYS must be one of CloudWatch's periods"],
    ["API_RATE_LIMIT", "fast", "API_RATE_LIMIT must be a positive integer"],
  ])("refuses %s=%s in one line naming it, without a stack", (name, value, message) => {
    let refused: unknown;
    try {
      checkSettings({ [name]: value });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(SettingError);
    const { message: said, stack } = refused as Error;
    expect(said).toContain(message);
    expect(said).toContain(JSON.stringify(value));
    expect(said).not.toContain("\n");
    expect(stack).toBe("");
  });
});

describe("WEBHOOK_SUBSCRIBERS", () => {
  it("is checked with the other settings, once, refusing what the delivery would refuse", () => {
    expect(() => checkSettings({ WEBHOOK_SUBSCRIBERS: "a=https://198.18.0.1/" })).toThrow(
      new SettingError(
        "WEBHOOK_SUBSCRIBERS: https://198.18.0.1/ names an address that is not public",
      ),
    );
    expect(() => checkSettings({ WEBHOOK_SUBSCRIBERS: "a=https://8.8.8.8/hook" })).not.toThrow();
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
  it("refuses a bad setting before anything else, in the setting's own words", async () => {
    const refusal = await runServerless(["print"], templateEnv({ TIME_ZONE: "Mars/Nowhere" })).then(
      () => "",
      (error: Error) => error.message,
    );
    expect(refusal).toContain(
      'TIME_ZONE must be an IANA time zone such as Europe/Paris, not "Mars/Nowhere"',
    );
    expect(refusal).not.toMatch(/^\s+at /m);
  });
});
