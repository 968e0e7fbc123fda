// Unit: the configuration an instance reads at cold start: defaults, and every bad setting
// refused with a message naming it, before any request is served.
import { describe, expect, it } from "vitest";
import { readConfig } from "../../../lib/app/config.js";

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
    });
  });

  it("treats empty settings as unset", () => {
    expect(
      readConfig({
        ...BASE,
        IDEMPOTENCY_TABLE_NAME: "",
        AWS_ENDPOINT_URL_DYNAMODB: "",
        AWS_REGION: "",
        LOG_LEVEL: "",
        POWERTOOLS_SERVICE_NAME: "",
        ID_BLOCK_SIZE: "",
        CORS_ORIGINS: "",
      }),
    ).toEqual(readConfig(BASE));
  });

  it("reads every setting it is given", () => {
    expect(
      readConfig({
        TABLE_NAME: "t",
        IDEMPOTENCY_TABLE_NAME: "k",
        AWS_ENDPOINT_URL_DYNAMODB: "http://127.0.0.1:8000",
        AWS_REGION: "eu-west-1",
        LOG_LEVEL: "silent",
        POWERTOOLS_SERVICE_NAME: "blog",
        ID_BLOCK_SIZE: "100",
        CORS_ORIGINS: " https://a.example, ,https://b.example ",
      }),
    ).toEqual({
      tableName: "t",
      idempotencyTableName: "k",
      endpoint: "http://127.0.0.1:8000",
      region: "eu-west-1",
      logLevel: "silent",
      serviceName: "blog",
      idBlockSize: 100,
      corsOrigins: ["https://a.example", "https://b.example"],
    });
  });

  it.each([{}, { TABLE_NAME: "" }])("refuses a missing TABLE_NAME (%j)", (env) => {
    expect(() => readConfig(env)).toThrow("TABLE_NAME is not set");
  });

  it.each(["info", "error", "silent"] as const)("accepts LOG_LEVEL %s", (level) => {
    expect(readConfig({ ...BASE, LOG_LEVEL: level }).logLevel).toBe(level);
  });

  it.each(["debug", "INFO", "warn", " info"])("refuses LOG_LEVEL %j", (level) => {
    expect(() => readConfig({ ...BASE, LOG_LEVEL: level })).toThrow(
      `LOG_LEVEL must be info, error or silent, not ${level}`,
    );
  });

  it.each([
    ["1", 1],
    ["10000", 10_000],
  ])("accepts ID_BLOCK_SIZE %s, a bound", (size, expected) => {
    expect(readConfig({ ...BASE, ID_BLOCK_SIZE: size }).idBlockSize).toBe(expected);
  });

  it.each(["0", "-1", "10001", "1.5", "abc", "Infinity", "NaN", "9007199254740993"])(
    "refuses ID_BLOCK_SIZE %j",
    (size) => {
      expect(() => readConfig({ ...BASE, ID_BLOCK_SIZE: size })).toThrow(
        `ID_BLOCK_SIZE must be an integer from 1 to 10000, not ${size}`,
      );
    },
  );
});
