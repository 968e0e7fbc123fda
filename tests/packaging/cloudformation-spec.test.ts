// The packaged templates against CloudFormation's resource specification (types, properties,
// required ones, value types and allowed values; no empty strings), and the check's refusals.
import { describe, expect, it } from "vitest";
import { type Template, loadSpec, specProblems } from "../helpers/cloudformation-spec.js";
import { SHARED_SETTINGS, packagedBeforeAll } from "../helpers/package.js";

const packages = packagedBeforeAll({ defaults: {}, "every option": SHARED_SETTINGS.everyOption });
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

/** The first resource of `type`, and the posts table's properties, in a template. */
const first = (t: Template, type: string) =>
  Object.values(t.Resources).find((r) => r.Type === type)!;
const table = (t: Template) => t.Resources.PostsTable!.Properties!;

describe("the check", () => {
  it.each([
    [
      "a misspelt property",
      (t: Template) => {
        table(t).BilingMode = table(t).BillingMode;
        delete table(t).BillingMode;
      },
      "PostsTable.Properties.BilingMode: no such property",
    ],
    [
      "a resource type that does not exist",
      (t: Template) => (t.Resources.PostsTable!.Type = "AWS::DynamoDB::Tabel"),
      "PostsTable: no resource type AWS::DynamoDB::Tabel",
    ],
    [
      "a required property left out",
      (t: Template) => delete table(t).KeySchema,
      "PostsTable.Properties.KeySchema: required, missing",
    ],
    [
      "a misspelt nested property",
      (t: Template) =>
        (table(t).PointInTimeRecoverySpecification = { PointInTimeRecoveryEnabeld: true }),
      "PostsTable.Properties.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabeld: no such property",
    ],
    [
      "a value not among the allowed ones",
      (t: Template) => (first(t, "AWS::Logs::LogGroup").Properties!.RetentionInDays = 31),
      "RetentionInDays: expected one of 1, 3, 5, 7, 14, 30,",
    ],
    [
      "a number where a boolean belongs",
      (t: Template) => (table(t).DeletionProtectionEnabled = 1),
      "PostsTable.Properties.DeletionProtectionEnabled: expected a boolean, got 1",
    ],
    [
      "text where a number belongs",
      (t: Template) => (first(t, "AWS::Lambda::Function").Properties!.MemorySize = "a lot"),
      'MemorySize: expected a number, got "a lot"',
    ],
  ])("refuses %s", async (_, breakIt, problem) => {
    const broken = structuredClone(template());
    breakIt(broken);
    const problems = specProblems(await loadSpec(), broken);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(problem);
  });
});
