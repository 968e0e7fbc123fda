// The packaged templates against CloudFormation's resource specification (types, properties,
// required ones, value types and allowed values; no empty strings), and the check's refusals.
import { describe, expect, it } from "vitest";
import { type Template, loadSpec, specProblems } from "../helpers/cloudformation-spec.js";
import { packagedBeforeAll } from "../helpers/package.js";

const packages = packagedBeforeAll({
  defaults: {},
  // Every optional resource and property on.
  "every option": {
    AUTH_USER_POOL: "true",
    ALARM_TOPIC_ARN: "arn:aws:sns:us-east-1:123456789012:blog-alarms",
    CORS_ORIGINS: "https://blog.example",
    ACCESS_LOGS: "true",
    TRACING: "true",
    WAF_RATE_LIMIT: "500",
    WEBHOOK_SUBSCRIBERS: "site=https://hooks.example.com/blog",
  },
});
const template = () => packages["every option"].template as Template;

/** The paths of every property of `value` that holds an empty string. */
function emptyStrings(value: unknown, path: string): string[] {
  if (value === "") return [path];
  if (Array.isArray(value)) return value.flatMap((item, i) => emptyStrings(item, `${path}[${i}]`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => emptyStrings(item, `${path}.${key}`));
}

describe.each(["defaults", "every option"] as const)("the template packaged with %s", (name) => {
  it("has every resource type and property as the specification defines them", async () => {
    const packaged = packages[name].template as Template;
    expect(Object.keys(packaged.Resources).length).toBeGreaterThan(20);
    expect(specProblems(await loadSpec(), packaged)).toEqual([]);
  });

  it("has no property holding an empty string", () => {
    const empty = emptyStrings(packages[name].template.Resources, "Resources");
    // Fn::Join's separator is an empty string by design, not a value AWS must have.
    expect(empty.filter((path) => !/Fn::Join\[0\]$/.test(path))).toEqual([]);
  });
});

describe("the check", () => {
  it.each([
    {
      name: "a misspelt property",
      breakIt: (t: Template) => {
        const properties = t.Resources.PostsTable!.Properties!;
        properties.BilingMode = properties.BillingMode;
        delete properties.BillingMode;
      },
      problem: "PostsTable.Properties.BilingMode: no such property",
    },
    {
      name: "a resource type that does not exist",
      breakIt: (t: Template) => (t.Resources.PostsTable!.Type = "AWS::DynamoDB::Tabel"),
      problem: "PostsTable: no resource type AWS::DynamoDB::Tabel",
    },
    {
      name: "a required property left out",
      breakIt: (t: Template) => delete t.Resources.PostsTable!.Properties!.KeySchema,
      problem: "PostsTable.Properties.KeySchema: required, missing",
    },
    {
      name: "a misspelt nested property",
      breakIt: (t: Template) =>
        (t.Resources.PostsTable!.Properties!.PointInTimeRecoverySpecification = {
          PointInTimeRecoveryEnabeld: true,
        }),
      problem:
        "PostsTable.Properties.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabeld: no such property",
    },
    {
      name: "a value not among the allowed ones",
      breakIt: (t: Template) => {
        const group = Object.values(t.Resources).find((r) => r.Type === "AWS::Logs::LogGroup");
        group!.Properties!.RetentionInDays = 31;
      },
      problem: "RetentionInDays: expected one of 1, 3, 5, 7, 14, 30,",
    },
    {
      name: "a number where a boolean belongs",
      breakIt: (t: Template) => (t.Resources.PostsTable!.Properties!.DeletionProtectionEnabled = 1),
      problem: "PostsTable.Properties.DeletionProtectionEnabled: expected a boolean, got 1",
    },
    {
      name: "text where a number belongs",
      breakIt: (t: Template) => {
        const fn = Object.values(t.Resources).find((r) => r.Type === "AWS::Lambda::Function");
        fn!.Properties!.MemorySize = "a lot";
      },
      problem: 'MemorySize: expected a number, got "a lot"',
    },
  ])("refuses $name", async ({ breakIt, problem }) => {
    const broken = structuredClone(template());
    breakIt(broken);
    const problems = specProblems(await loadSpec(), broken);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(problem);
  });
});
