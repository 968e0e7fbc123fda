// The packaged template against CloudFormation's resource specification: every resource of a type
// that exists, with only properties its type has, the required ones present, values of the right
// type and among the allowed ones. A template that breaks any of these must be refused.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SpecDatabase } from "@aws-cdk/service-spec-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Template, loadSpec, specProblems } from "../helpers/cloudformation-spec.js";
import { packageInto } from "../helpers/package.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
let packageDir = "";
let template: Template;
let spec: SpecDatabase;

beforeAll(async () => {
  packageDir = await mkdtemp(join(tmpdir(), "blog-post-cfn-spec-"));
  // Alarms, CORS, the user pool, access logs and tracing on (and the WAF limit by default), so
  // their resources and properties are in the template too.
  const env = {
    ...process.env,
    AUTH_ISSUER_URL: "",
    AUTH_USER_POOL: "true",
    ALARM_TOPIC_ARN: "arn:aws:sns:us-east-1:123456789012:blog-alarms",
    CORS_ORIGINS: "https://blog.example",
    ACCESS_LOGS: "true",
    TRACING: "true",
    // The webhook queue, the stream's mapping and the delivery function.
    WEBHOOK_SUBSCRIBERS: "site=https://hooks.example.com/blog",
  };
  const [loaded, packaged] = await Promise.all([loadSpec(), packageInto(packageDir, env)]);
  spec = loaded;
  template = packaged as Template;
});

afterAll(async () => {
  if (packageDir) await rm(packageDir, { recursive: true, force: true });
});

const clone = (value: Template): Template => structuredClone(value);

describe("the packaged template", () => {
  it("has every resource type and property as the specification defines them", () => {
    expect(Object.keys(template.Resources).length).toBeGreaterThan(20);
    expect(specProblems(spec, template)).toEqual([]);
  });
});

describe("the check", () => {
  it("refuses a misspelt property (fixture)", async () => {
    const fixture = JSON.parse(
      await readFile(join(root, "tests/packaging/fixtures/misspelt-property.json"), "utf8"),
    ) as Template;
    expect(specProblems(spec, fixture)).toEqual([
      "PostsTable.Properties.BilingMode: no such property",
    ]);
  });

  it.each([
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
  ])("refuses $name", ({ breakIt, problem }) => {
    const broken = clone(template);
    breakIt(broken);
    const problems = specProblems(spec, broken);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(problem);
  });
});
