// Unit: the configuration an instance reads at cold start: defaults, and every bad setting
// refused with a message naming it, before any request is served, exactly as packaging refuses
// it (what each setting accepts is tests/unit/shared/settings.test.ts).
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../../lib/app/config.js";

const { checkSettings } = createRequire(import.meta.url)("../../../config/settings.cjs") as {
  checkSettings(env: NodeJS.ProcessEnv): void;
};

const BASE = { TABLE_NAME: "posts" };

describe("readConfig", () => {
  it("fills every unset setting with its default", () => {
    expect(readConfig(BASE)).toEqual({
      tableName: "posts",
      idempotencyTableName: undefined,
      endpoint: undefined,
      region: "us-east-1",
      logLevel: "info",
      idBlockSize: 1,
      corsOrigins: [],
      spendLimitUsd: 10,
    });
  });

  const SET = {
    IDEMPOTENCY_TABLE_NAME: "k",
    AWS_ENDPOINT_URL_DYNAMODB: "http://127.0.0.1:8000",
    AWS_REGION: "eu-west-1",
    LOG_LEVEL: "silent",
    POWERTOOLS_SERVICE_NAME: "blog",
    ID_BLOCK_SIZE: "100",
    CORS_ORIGINS: " https://a.example, ,https://b.example ",
    SPEND_LIMIT_USD: "0.05",
  };

  it("treats empty settings as unset", () => {
    const empty = Object.fromEntries(Object.keys(SET).map((name) => [name, ""]));
    expect(readConfig({ ...BASE, ...empty })).toEqual(readConfig(BASE));
  });

  it("reads every setting it is given", () => {
    expect(readConfig({ TABLE_NAME: "t", ...SET })).toEqual({
      tableName: "t",
      idempotencyTableName: "k",
      endpoint: "http://127.0.0.1:8000",
      region: "eu-west-1",
      logLevel: "silent",
      serviceName: "blog",
      idBlockSize: 100,
      corsOrigins: ["https://a.example", "https://b.example"],
      spendLimitUsd: 0.05,
    });
    expect(readConfig({ ...BASE, SPEND_LIMIT_USD: "off" }).spendLimitUsd).toBeUndefined();
  });

  it.each([{}, { TABLE_NAME: "" }])("refuses a missing TABLE_NAME (%j)", (env) => {
    expect(() => readConfig(env)).toThrow("TABLE_NAME is not set");
  });

  /** The message `check` throws, or undefined. */
  const refusal = (check: () => unknown) => {
    try {
      check();
    } catch (error) {
      return (error as Error).message;
    }
  };
  it.each([
    ...[" info", "INFO"].map((value) => ["LOG_LEVEL", value]),
    ...[" 5 ", "1e3", "0x10"].map((value) => ["ID_BLOCK_SIZE", value]),
    ...[" Off ", "0", "1e3"].map((value) => ["SPEND_LIMIT_USD", value]),
  ])("takes %s=%j at start exactly when packaging takes it", (name, value) => {
    const atStart = refusal(() => readConfig({ ...BASE, [name]: value }));
    expect(atStart).toBe(refusal(() => checkSettings({ [name]: value })));
    if (atStart !== undefined) expect(atStart).toMatch(new RegExp(`^${name} `));
  });
});
