// Unit tests: the deployment settings read by serverless.yml (config/*.cjs), without the CLI. The
// packaging tests show a few refusals through the CLI itself.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

// config/ is CommonJS without types.
type Env = NodeJS.ProcessEnv;
const require = createRequire(import.meta.url);
const config = (name: string) => require(`../../config/${name}.cjs`);
const { readAuth } = config("auth");
const { openWritesProblem } = config("open-writes-guard");
const { domainPrefix } = config("user-pool");
const { readAlarmSettings } = config("alarms");
const { readApplicationLogLevel } = config("logging");
const { spendLimitSetting } = config("settings");
const { positiveInteger, readReservedConcurrency } = config("limits");
const { readRateLimit } = config("waf");
const { readStageSettings } = config("rest-stage");
const { readSubscribers } = config("events");
const { allowOriginParameter, gatewayResponses } = config("gateway-responses");

const ISSUER = { AUTH_ISSUER_URL: "https://i.example" };
const POOL = { AUTH_USER_POOL: "true" };
const NONE = { writeScope: undefined, reads: false, userPool: false, machineClient: false };

describe("readAuth", () => {
  it.each([
    { AUTH_AUDIENCE: "blog", AUTH_READS: "true" },
    { AUTH_ISSUER_URL: "  " },
    { AUTH_USER_POOL: "false" },
  ])("is off without an issuer or the stage's pool: %o", (env) => {
    expect(readAuth(env)).toBeUndefined();
  });

  it("reads a comma-separated audience, an optional scope and AUTH_READS", () => {
    const read = { ...NONE, issuerUrl: "https://i.example", audience: ["a", "b"], reads: true };
    expect(readAuth({ ...ISSUER, AUTH_AUDIENCE: " a, ,b ", AUTH_READS: "true" })).toEqual(read);
    const scoped = readAuth({ ...ISSUER, AUTH_AUDIENCE: "a", AUTH_WRITE_SCOPE: "w" });
    expect(scoped).toMatchObject({ writeScope: "w", reads: false, userPool: false });
  });

  it("with AUTH_USER_POOL=true, trusts the stage's pool and the clients allowed its scope", () => {
    expect(readAuth(POOL)).toEqual({
      ...NONE,
      issuerUrl: { "Fn::Sub": "https://cognito-idp.${AWS::Region}.${AWS::URLSuffix}/${UserPool}" },
      audience: [{ Ref: "UserPoolSignInClient" }],
      writeScope: "blog/write",
      userPool: true,
    });
    const machine = readAuth({ ...POOL, AUTH_MACHINE_CLIENT: "true", AUTH_READS: "true" });
    expect(machine).toMatchObject({ machineClient: true, reads: true });
  });

  it.each([
    [{ ...POOL, ...ISSUER }, /AUTH_USER_POOL=true and AUTH_ISSUER_URL both name who issues the/],
    [{ AUTH_USER_POOL: "yes" }, /AUTH_USER_POOL must be true or false, not "yes"/],
    [{ AUTH_MACHINE_CLIENT: "true" }, /AUTH_MACHINE_CLIENT=true adds a client to the stage's own/],
    [{ ...POOL, AUTH_MACHINE_CLIENT: "1" }, /AUTH_MACHINE_CLIENT must be true or false/],
    [{ ...POOL, AUTH_AUDIENCE: "people-app" }, /AUTH_AUDIENCE does not apply with AUTH_USER_POOL/],
    [{ ...POOL, AUTH_WRITE_SCOPE: "w" }, /AUTH_WRITE_SCOPE does not apply .*scope is blog\/write/],
    [{ ...ISSUER, AUTH_AUDIENCE: "blog", AUTH_READS: "yes" }, /AUTH_READS must be true or false/],
  ])("refuses %o with a message naming the settings", (env, message) => {
    expect(() => readAuth(env)).toThrow(message);
  });
});

describe("domainPrefix", () => {
  it("is unique per service, stage and account unless AUTH_POOL_DOMAIN names one", () => {
    const unique = { "Fn::Sub": "blog-post-api-prod-eu-${AWS::AccountId}" };
    expect(domainPrefix("Prod_EU", {})).toEqual(unique);
    expect(domainPrefix("prod", { AUTH_POOL_DOMAIN: " my-blog-writers " })).toBe("my-blog-writers");
  });

  const names = ["My-Blog", "-blog", "blog-", "my-aws-blog", "cognito-blog", "x".repeat(64)];
  it.each(names)("refuses AUTH_POOL_DOMAIN=%s", (AUTH_POOL_DOMAIN) => {
    const refusal = /AUTH_POOL_DOMAIN must be 1-63 lowercase letters/;
    expect(() => domainPrefix("prod", { AUTH_POOL_DOMAIN })).toThrow(refusal);
  });
});

describe("openWritesProblem", () => {
  it.each([
    {},
    { ALLOW_ANONYMOUS_WRITES: "false" },
    { AUTH_AUDIENCE: "blog", AUTH_USER_POOL: "false" },
  ])("refuses %o, naming the three ways on", (env) => {
    const problem = openWritesProblem(env);
    expect(problem).toMatch(/no authorizer is configured/);
    for (const way of ["AUTH_USER_POOL=true", "AUTH_ISSUER_URL", "ALLOW_ANONYMOUS_WRITES=true"]) {
      expect(problem).toContain(way);
    }
  });

  it.each([
    [{ ALLOW_ANONYMOUS_WRITES: "yes" }, /ALLOW_ANONYMOUS_WRITES must be true or false/],
    [{ ALLOW_ANONYMOUS_WRITES: "true" }, undefined],
    [{ ...ISSUER, AUTH_AUDIENCE: "blog" }, undefined],
    [POOL, undefined],
  ])("%o: %s", (env, problem) => {
    if (problem) expect(openWritesProblem(env)).toMatch(problem);
    else expect(openWritesProblem(env)).toBeUndefined();
  });
});

describe("readReservedConcurrency", () => {
  it("maps each named function to its count", () => {
    expect(readReservedConcurrency({})).toEqual({});
    const RESERVED_CONCURRENCY = "getPost=0, deletePost=3,";
    const counts = { getPost: 0, deletePost: 3 };
    expect(readReservedConcurrency({ RESERVED_CONCURRENCY })).toEqual(counts);
  });

  const entries = ["list=3", "listPosts", "listPosts=-1", "listPosts=2.5", "listPosts=many"];
  it.each(entries)("refuses %s", (RESERVED_CONCURRENCY) => {
    const refusal = /RESERVED_CONCURRENCY entries must be <function>=<count>/;
    expect(() => readReservedConcurrency({ RESERVED_CONCURRENCY })).toThrow(refusal);
  });
});

describe("positive integer settings", () => {
  it("a table's ceiling is a positive integer, its default when unset", () => {
    const ceiling = (value?: string) =>
      positiveInteger("TABLE_MAX_READ_UNITS", { TABLE_MAX_READ_UNITS: value });
    expect([ceiling(), ceiling("400")]).toEqual([1000, 400]);
    expect(() => ceiling("0")).toThrow('TABLE_MAX_READ_UNITS must be a positive integer, not "0"');
  });

  it("the alarms take their thresholds and ceilings from the settings, or their defaults", () => {
    const defaults = { latencyMs: 1000, capacityPercent: 80, maxReadUnits: 1000 };
    expect(readAlarmSettings({})).toEqual({ topic: "", ...defaults, maxWriteUnits: 200 });
    const env = { ALARM_TOPIC_ARN: " arn:t ", LATENCY_ALARM_MS: "250" };
    const set = { ...env, CAPACITY_ALARM_PERCENT: "100", TABLE_MAX_READ_UNITS: "50" };
    const read = { topic: "arn:t", latencyMs: 250, capacityPercent: 100, maxReadUnits: 50 };
    expect(readAlarmSettings(set)).toMatchObject(read);
  });

  it("the stage throttles at 100/200, with access logs and tracing off, by default", () => {
    const off = { accessLogs: false, tracing: false, logRetentionDays: 30 };
    expect(readStageSettings({})).toEqual({ rateLimit: 100, burstLimit: 200, ...off });
  });

  // The wording of a positive integer's refusal is positiveInteger's, above.
  it.each([
    [readAlarmSettings, { LATENCY_ALARM_MS: "fast" }, /^LATENCY_ALARM_MS /],
    [readAlarmSettings, { CAPACITY_ALARM_PERCENT: "0" }, /^CAPACITY_ALARM_PERCENT /],
    [readAlarmSettings, { CAPACITY_ALARM_PERCENT: "101" }, /PERCENT must be at most 100, not 101/],
    [readStageSettings, { ACCESS_LOGS: "yes" }, /ACCESS_LOGS must be true or false, not "yes"/],
    [readStageSettings, { TRACING: "1" }, /TRACING must be true or false, not "1"/],
    [readStageSettings, { API_RATE_LIMIT: "0" }, /^API_RATE_LIMIT /],
  ])("%o refuses %o", (read, env, message) => {
    expect(() => read(env)).toThrow(message);
  });
});

describe("readRateLimit (WAF_RATE_LIMIT)", () => {
  const reads = { " 2000 ": 2000, "10": 10, off: undefined };
  it.each([[undefined, undefined], ...Object.entries(reads)])("reads %j as %s", (value, read) => {
    expect(readRateLimit(value === undefined ? {} : { WAF_RATE_LIMIT: value })).toBe(read);
  });

  it.each(["9", "0", "-5", "1e3", "lots", "OFF", "12.5"])("refuses %j in one line", (value) => {
    expect(() => readRateLimit({ WAF_RATE_LIMIT: value })).toThrow(
      `WAF_RATE_LIMIT must be off or a whole number of requests a minute from 10 up, not ${JSON.stringify(value)}`,
    );
  });
});

describe("WEBHOOK_SUBSCRIBERS", () => {
  it("reads name=url pairs, and none when unset", () => {
    expect(readSubscribers({})).toEqual([]);
    const WEBHOOK_SUBSCRIBERS = " site=https://a.example/x , cdn=https://203.0.114.9/";
    expect(readSubscribers({ WEBHOOK_SUBSCRIBERS })).toEqual([
      { name: "site", url: "https://a.example/x" },
      { name: "cdn", url: "https://203.0.114.9/" },
    ]);
  });

  // Which addresses are refused: tests/unit/events/address.test.ts walks them all through here.
  it.each([
    ["site=http://a.example/", "is not https"],
    ["site=https://u:p@a.example/", "carries credentials"],
    ["site=https://localhost:8443/", "an address that is not public"],
    ["site=https://hooks.localhost/", "an address that is not public"],
    ["site=not a url", "name=https://url pairs"],
    ["a b=https://a.example/", "name=https://url pairs"],
  ])("refuses %s", (setting, reason) => {
    expect(() => readSubscribers({ WEBHOOK_SUBSCRIBERS: setting })).toThrow(reason);
  });
});

describe("the gateway's own answers", () => {
  it.each([
    [[], undefined],
    [["https://a.example"], "'https://a.example'"],
    [["*"], "'*'"],
    [["https://a.example", "https://b.example"], "method.request.header.origin"],
  ])("allow the origins %j as %s", (origins, expected) => {
    expect(allowOriginParameter(origins)).toBe(expected);
  });

  type Answer = {
    Properties: { ResponseType: string; ResponseParameters: Record<string, string> };
  };
  const EXPOSE = "gatewayresponse.header.Access-Control-Expose-Headers";
  /** Each answer type's Access-Control-Expose-Headers, with these settings. */
  const exposed = (env: Env) =>
    Object.fromEntries(
      Object.values<Answer>(gatewayResponses({ Ref: "ApiGatewayRestApi" }, env)).map(
        ({ Properties }) => [Properties.ResponseType, Properties.ResponseParameters[EXPOSE]],
      ),
    );

  it("expose the headers they carry beyond the simple ones, so a browser app reads them", () => {
    const withCors = exposed({ CORS_ORIGINS: "https://a.example" });
    // The client honours a 429's Retry-After; a page could not read it otherwise.
    expect(withCors.THROTTLED).toBe("'Retry-After'");
    expect(withCors.UNAUTHORIZED).toBe("'WWW-Authenticate'");
    expect(withCors.ACCESS_DENIED).toBeUndefined();
    expect(Object.values(exposed({})).filter(Boolean), "without CORS_ORIGINS").toEqual([]);
  });
});

describe("the functions' settings as serverless hands them over", () => {
  it("LOG_LEVEL is info (the default), error or silent, as Lambda's own levels", () => {
    expect(readApplicationLogLevel({})).toBe("INFO");
    expect(readApplicationLogLevel({ LOG_LEVEL: " silent " })).toBe("FATAL");
    expect(() => readApplicationLogLevel({ LOG_LEVEL: "verbose" })).toThrow(/^LOG_LEVEL /);
  });

  it("SPEND_LIMIT_USD is off or the dollars as written, 10 by default", () => {
    const limits = ["", " OFF ", " 0.0000001 "].map((SPEND_LIMIT_USD) =>
      spendLimitSetting(SPEND_LIMIT_USD ? { SPEND_LIMIT_USD } : {}),
    );
    expect(limits).toEqual(["10", "off", "0.0000001"]);
    expect(() => spendLimitSetting({ SPEND_LIMIT_USD: "-1" })).toThrow(/^SPEND_LIMIT_USD /);
  });
});
