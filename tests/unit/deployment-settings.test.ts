// Unit tests: the deployment settings read by serverless.yml (config/*.cjs), without the CLI.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const { readAuth } = require("../../config/auth.cjs") as {
  readAuth(env: NodeJS.ProcessEnv): Record<string, unknown> | undefined;
};
const { openWritesProblem } = require("../../config/open-writes-guard.cjs") as {
  openWritesProblem(env: NodeJS.ProcessEnv): string | undefined;
};
const { domainPrefix } = require("../../config/user-pool.cjs") as {
  domainPrefix(stage: string, env: NodeJS.ProcessEnv): unknown;
};
const { readAlarmSettings } = require("../../config/alarms.cjs") as {
  readAlarmSettings(env: NodeJS.ProcessEnv): Record<string, unknown>;
};
const { readApplicationLogLevel } = require("../../config/logging.cjs") as {
  readApplicationLogLevel(env: NodeJS.ProcessEnv): string;
};
const { spendLimitSetting } = require("../../config/settings.cjs") as {
  spendLimitSetting(env: NodeJS.ProcessEnv): string;
};
const { positiveInteger, readReservedConcurrency } = require("../../config/limits.cjs") as {
  positiveInteger(name: string, env: NodeJS.ProcessEnv): number;
  readReservedConcurrency(env: NodeJS.ProcessEnv): Record<string, number>;
};
const { readRateLimit } = require("../../config/waf.cjs") as {
  readRateLimit(env: NodeJS.ProcessEnv): number | undefined;
};
const { readStageSettings } = require("../../config/rest-stage.cjs") as {
  readStageSettings(env: NodeJS.ProcessEnv): Record<string, unknown>;
};
const { allowOriginParameter, gatewayResponses } =
  require("../../config/gateway-responses.cjs") as {
    allowOriginParameter(origins: string[]): string | undefined;
    gatewayResponses(
      restApiId: unknown,
      env: NodeJS.ProcessEnv,
    ): Record<
      string,
      { Properties: { ResponseType: string; ResponseParameters: Record<string, string> } }
    >;
  };

describe("readAuth", () => {
  it("is off without an issuer, whatever else is set", () => {
    expect(readAuth({ AUTH_AUDIENCE: "blog", AUTH_READS: "true" })).toBeUndefined();
    expect(readAuth({ AUTH_ISSUER_URL: "  " })).toBeUndefined();
  });

  it("reads a comma-separated audience, an optional scope and AUTH_READS", () => {
    expect(
      readAuth({
        AUTH_ISSUER_URL: "https://i.example",
        AUTH_AUDIENCE: " a, ,b ",
        AUTH_READS: "true",
      }),
    ).toEqual({
      issuerUrl: "https://i.example",
      audience: ["a", "b"],
      writeScope: undefined,
      reads: true,
      userPool: false,
      machineClient: false,
    });
    expect(
      readAuth({ AUTH_ISSUER_URL: "https://i.example", AUTH_AUDIENCE: "a", AUTH_WRITE_SCOPE: "w" }),
    ).toMatchObject({ writeScope: "w", reads: false, userPool: false });
  });

  it("with AUTH_USER_POOL=true, trusts the stage's pool and the clients allowed its scope", () => {
    expect(readAuth({ AUTH_USER_POOL: "true" })).toEqual({
      issuerUrl: {
        "Fn::Sub": "https://cognito-idp.${AWS::Region}.${AWS::URLSuffix}/${UserPool}",
      },
      audience: [{ Ref: "UserPoolSignInClient" }],
      writeScope: "blog/write",
      reads: false,
      userPool: true,
      machineClient: false,
    });
    expect(readAuth({ AUTH_USER_POOL: "true", AUTH_MACHINE_CLIENT: "true" })).toMatchObject({
      machineClient: true,
    });
    expect(readAuth({ AUTH_USER_POOL: "false" })).toBeUndefined();
    expect(readAuth({ AUTH_USER_POOL: "true", AUTH_READS: "true" })).toMatchObject({ reads: true });
  });

  it.each([
    [
      { AUTH_USER_POOL: "true", AUTH_ISSUER_URL: "https://i.example", AUTH_AUDIENCE: "a" },
      /AUTH_USER_POOL=true and AUTH_ISSUER_URL both name who issues the tokens: set one/,
    ],
    [{ AUTH_USER_POOL: "yes" }, /AUTH_USER_POOL must be true or false, not "yes"/],
    [
      { AUTH_MACHINE_CLIENT: "true" },
      /AUTH_MACHINE_CLIENT=true adds a client to the stage's own user pool: set AUTH_USER_POOL=true too/,
    ],
    [
      { AUTH_USER_POOL: "true", AUTH_MACHINE_CLIENT: "1" },
      /AUTH_MACHINE_CLIENT must be true or false/,
    ],
    [
      { AUTH_USER_POOL: "true", AUTH_AUDIENCE: "people-app" },
      /AUTH_AUDIENCE does not apply with AUTH_USER_POOL=true/,
    ],
    [
      { AUTH_USER_POOL: "true", AUTH_WRITE_SCOPE: "blog/admin" },
      /AUTH_WRITE_SCOPE does not apply with AUTH_USER_POOL=true: the pool's write scope is blog\/write/,
    ],
  ])("refuses %o with a message naming the settings", (env, message) => {
    expect(() => readAuth(env)).toThrow(message);
  });
});

describe("domainPrefix", () => {
  it("is unique per service, stage and account unless AUTH_POOL_DOMAIN names one", () => {
    expect(domainPrefix("Prod_EU", {})).toEqual({
      "Fn::Sub": "blog-post-api-prod-eu-${AWS::AccountId}",
    });
    expect(domainPrefix("prod", { AUTH_POOL_DOMAIN: " my-blog-writers " })).toBe("my-blog-writers");
  });

  it.each(["My-Blog", "-blog", "blog-", "my-aws-blog", "cognito-blog", "x".repeat(64)])(
    "refuses AUTH_POOL_DOMAIN=%s",
    (name) => {
      expect(() => domainPrefix("prod", { AUTH_POOL_DOMAIN: name })).toThrow(
        /AUTH_POOL_DOMAIN must be 1-63 lowercase letters/,
      );
    },
  );
});

describe("openWritesProblem", () => {
  it.each([
    [{}, /no authorizer is configured/],
    [{ ALLOW_ANONYMOUS_WRITES: "false" }, /no authorizer is configured/],
    [{ ALLOW_ANONYMOUS_WRITES: "yes" }, /ALLOW_ANONYMOUS_WRITES must be true or false/],
    [{ AUTH_AUDIENCE: "blog", AUTH_USER_POOL: "false" }, /no authorizer is configured/],
  ])("refuses %o", (env, message) => {
    expect(openWritesProblem(env)).toMatch(message);
  });

  it("names the three ways on in its refusal", () => {
    const problem = openWritesProblem({}) ?? "";
    for (const way of ["AUTH_USER_POOL=true", "AUTH_ISSUER_URL", "ALLOW_ANONYMOUS_WRITES=true"]) {
      expect(problem).toContain(way);
    }
  });

  it.each([
    [{ ALLOW_ANONYMOUS_WRITES: "true" }],
    [{ AUTH_ISSUER_URL: "https://i.example", AUTH_AUDIENCE: "blog" }],
    [{ AUTH_USER_POOL: "true" }],
  ])("lets %o through", (env) => {
    expect(openWritesProblem(env)).toBeUndefined();
  });
});

describe("readReservedConcurrency", () => {
  it("maps each named function to its count", () => {
    expect(readReservedConcurrency({})).toEqual({});
    expect(readReservedConcurrency({ RESERVED_CONCURRENCY: "getPost=0, deletePost=3," })).toEqual({
      getPost: 0,
      deletePost: 3,
    });
  });

  it.each(["list=3", "listPosts", "listPosts=-1", "listPosts=2.5", "listPosts=many"])(
    "refuses %s",
    (entry) => {
      expect(() => readReservedConcurrency({ RESERVED_CONCURRENCY: entry })).toThrow(
        /RESERVED_CONCURRENCY entries must be <function>=<count>/,
      );
    },
  );
});

describe("readAlarmSettings", () => {
  it("takes the thresholds and ceilings from the settings, or their defaults", () => {
    expect(readAlarmSettings({})).toEqual({
      topic: "",
      latencyMs: 1000,
      capacityPercent: 80,
      maxReadUnits: 1000,
      maxWriteUnits: 200,
    });
    expect(
      readAlarmSettings({
        ALARM_TOPIC_ARN: " arn:t ",
        LATENCY_ALARM_MS: "250",
        CAPACITY_ALARM_PERCENT: "100",
        TABLE_MAX_READ_UNITS: "50",
      }),
    ).toMatchObject({ topic: "arn:t", latencyMs: 250, capacityPercent: 100, maxReadUnits: 50 });
  });

  it.each([
    [{ LATENCY_ALARM_MS: "fast" }, /LATENCY_ALARM_MS must be a positive integer/],
    [{ CAPACITY_ALARM_PERCENT: "0" }, /CAPACITY_ALARM_PERCENT must be a positive integer/],
    [{ CAPACITY_ALARM_PERCENT: "101" }, /CAPACITY_ALARM_PERCENT must be at most 100, not 101/],
  ])("refuses %o", (env, message) => {
    expect(() => readAlarmSettings(env)).toThrow(message);
  });
});

describe("readRateLimit (WAF_RATE_LIMIT)", () => {
  it.each([
    [{}, undefined],
    [{ WAF_RATE_LIMIT: " 2000 " }, 2000],
    [{ WAF_RATE_LIMIT: "10" }, 10],
    [{ WAF_RATE_LIMIT: "off" }, undefined],
  ])("reads %o as %s", (env, expected) => {
    expect(readRateLimit(env)).toBe(expected);
  });

  it.each(["9", "0", "-5", "1e3", "lots", "OFF", "12.5"])("refuses %j in one line", (value) => {
    expect(() => readRateLimit({ WAF_RATE_LIMIT: value })).toThrow(
      `WAF_RATE_LIMIT must be off or a whole number of requests a minute from 10 up, not ${JSON.stringify(value)}`,
    );
  });
});

describe("readStageSettings", () => {
  it("throttles at 100/200, with access logs and tracing off, by default", () => {
    expect(readStageSettings({})).toEqual({
      rateLimit: 100,
      burstLimit: 200,
      accessLogs: false,
      tracing: false,
      logRetentionDays: 30,
    });
  });

  it.each([
    [{ ACCESS_LOGS: "yes" }, /ACCESS_LOGS must be true or false, not "yes"/],
    [{ TRACING: "1" }, /TRACING must be true or false, not "1"/],
    [{ API_RATE_LIMIT: "0" }, /API_RATE_LIMIT must be a positive integer/],
  ])("refuses %o", (env, message) => {
    expect(() => readStageSettings(env)).toThrow(message);
  });
});

describe("the gateway answers' Access-Control-Allow-Origin", () => {
  it.each([
    [[], undefined],
    [["https://a.example"], "'https://a.example'"],
    [["*"], "'*'"],
    [["https://a.example", "https://b.example"], "method.request.header.origin"],
  ])("for %j is %s", (origins, expected) => {
    expect(allowOriginParameter(origins)).toBe(expected);
  });
});

describe("the gateway answers' Access-Control-Expose-Headers", () => {
  /** Each answer type's Access-Control-Expose-Headers, with these settings. */
  const exposed = (env: NodeJS.ProcessEnv) =>
    Object.fromEntries(
      Object.values(gatewayResponses({ Ref: "ApiGatewayRestApi" }, env)).map(({ Properties }) => [
        Properties.ResponseType,
        Properties.ResponseParameters["gatewayresponse.header.Access-Control-Expose-Headers"],
      ]),
    );

  it("name the headers an answer carries beyond the simple ones, so a browser app reads them", () => {
    const withCors = exposed({ CORS_ORIGINS: "https://a.example" });
    // The client honours a 429's Retry-After; a page could not read it otherwise.
    expect(withCors.THROTTLED).toBe("'Retry-After'");
    expect(withCors.UNAUTHORIZED).toBe("'WWW-Authenticate'");
    expect(withCors.ACCESS_DENIED).toBeUndefined();
  });

  it("are absent without CORS_ORIGINS", () => {
    expect(Object.values(exposed({})).filter(Boolean)).toEqual([]);
  });
});

// The settings serverless reads refuse a bad value in one line; the packaging tests show a few
// of them through the CLI itself.
describe("the other settings' refusals", () => {
  it("LOG_LEVEL is info (the default), error or silent, as Lambda's own levels", () => {
    expect(readApplicationLogLevel({})).toBe("INFO");
    expect(readApplicationLogLevel({ LOG_LEVEL: " silent " })).toBe("FATAL");
    expect(() => readApplicationLogLevel({ LOG_LEVEL: "verbose" })).toThrow(/^LOG_LEVEL /);
  });

  it("SPEND_LIMIT_USD reaches the functions as off or the dollars as written, 10 by default", () => {
    expect(spendLimitSetting({})).toBe("10");
    expect(spendLimitSetting({ SPEND_LIMIT_USD: " OFF " })).toBe("off");
    expect(spendLimitSetting({ SPEND_LIMIT_USD: " 0.0000001 " })).toBe("0.0000001");
    expect(() => spendLimitSetting({ SPEND_LIMIT_USD: "-1" })).toThrow(/^SPEND_LIMIT_USD /);
  });

  it("AUTH_READS is true or false", () => {
    const auth = { AUTH_ISSUER_URL: "https://issuer.example", AUTH_AUDIENCE: "blog" };
    expect(() => readAuth({ ...auth, AUTH_READS: "yes" })).toThrow(
      'AUTH_READS must be true or false, not "yes"',
    );
  });

  it("a table's ceiling is a positive integer", () => {
    expect(positiveInteger("TABLE_MAX_READ_UNITS", {})).toBe(1000);
    expect(positiveInteger("TABLE_MAX_READ_UNITS", { TABLE_MAX_READ_UNITS: "400" })).toBe(400);
    expect(() => positiveInteger("TABLE_MAX_READ_UNITS", { TABLE_MAX_READ_UNITS: "0" })).toThrow(
      'TABLE_MAX_READ_UNITS must be a positive integer, not "0"',
    );
  });
});
