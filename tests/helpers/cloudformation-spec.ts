// Test helper: a template checked against AWS's resource specification (@aws-cdk/aws-service-spec);
// intrinsic functions' values, known only at deploy time, are not checked.
import { loadAwsServiceSpec } from "@aws-cdk/aws-service-spec";
import type { Property, PropertyType, SpecDatabase } from "@aws-cdk/service-spec-types";

const INTRINSICS = new Set([
  ...["Ref", "Condition", "Fn::Base64", "Fn::Cidr", "Fn::FindInMap", "Fn::GetAtt", "Fn::GetAZs"],
  ...["Fn::If", "Fn::ImportValue", "Fn::Join", "Fn::Length", "Fn::Select", "Fn::Split", "Fn::Sub"],
  ...["Fn::ToJsonString", "Fn::Transform"],
]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isIntrinsic = (value: unknown) =>
  isObject(value) && Object.keys(value).length === 1 && INTRINSICS.has(Object.keys(value)[0]!);

/** The specification, loaded once (about a second and a half). */
export const loadSpec = (() => {
  let loading: Promise<SpecDatabase> | undefined;
  return () => (loading ??= loadAwsServiceSpec());
})();

export interface Template {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
}

/** Every way the template's resources depart from the specification, one line each. */
export function specProblems(db: SpecDatabase, template: Template): string[] {
  const problems: string[] = [];

  const checkProperties = (path: string, spec: Record<string, Property>, value: unknown) => {
    if (isIntrinsic(value)) return;
    if (!isObject(value))
      return void problems.push(`${path}: expected an object, got ${JSON.stringify(value)}`);
    for (const [name, inner] of Object.entries(value)) {
      const property = spec[name];
      if (!property) problems.push(`${path}.${name}: no such property`);
      else checkProperty(`${path}.${name}`, property, inner);
    }
    for (const [name, { required }] of Object.entries(spec)) {
      if (required && !(name in value)) problems.push(`${path}.${name}: required, missing`);
    }
  };

  /** Passes when any of `checks` finds nothing; otherwise keeps what the first one found. */
  const anyOf = (checks: (() => void)[]) => {
    const attempts = checks.map((check) => {
      const before = problems.length;
      check();
      return problems.splice(before);
    });
    if (!attempts.some((found) => found.length === 0)) problems.push(...attempts[0]!);
  };

  // A property that changed type over time accepts its earlier types too, as CloudFormation does.
  const checkProperty = (path: string, property: Property, value: unknown) =>
    anyOf(
      [property.type, ...(property.previousTypes ?? [])].map(
        (type) => () => checkValue(path, type, value),
      ),
    );

  const checkValue = (path: string, type: PropertyType, value: unknown): void => {
    if (isIntrinsic(value)) return;
    const wrong = (expected: string) =>
      problems.push(`${path}: expected ${expected}, got ${JSON.stringify(value)}`);
    switch (type.type) {
      case "string":
      case "date-time":
        if (typeof value !== "string") return void wrong("a string");
        if ("allowedValues" in type && type.allowedValues && !type.allowedValues.includes(value)) {
          wrong(`one of ${type.allowedValues.join(", ")}`);
        }
        return;
      case "number":
      case "integer": {
        // CloudFormation reads numbers written as strings.
        const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
        if (typeof number !== "number" || Number.isNaN(number)) return void wrong("a number");
        if (type.type === "integer" && !Number.isInteger(number)) return void wrong("an integer");
        if ("allowedValues" in type && type.allowedValues && !type.allowedValues.includes(number)) {
          wrong(`one of ${type.allowedValues.join(", ")}`);
        }
        return;
      }
      case "boolean":
        if (typeof value !== "boolean" && value !== "true" && value !== "false") wrong("a boolean");
        return;
      case "json":
        if (!isObject(value) && !Array.isArray(value) && typeof value !== "string") wrong("JSON");
        return;
      case "null":
        return void (value !== null && wrong("null"));
      case "tag":
        return void ((!isObject(value) || typeof value.Key !== "string") && wrong("a tag"));
      case "array":
        if (!Array.isArray(value)) return void wrong("a list");
        value.forEach((element, index) => checkValue(`${path}[${index}]`, type.element, element));
        return;
      case "map":
        if (!isObject(value)) return void wrong("a map");
        for (const [key, inner] of Object.entries(value)) {
          checkValue(`${path}.${key}`, type.element, inner);
        }
        return;
      case "union":
        return anyOf(type.types.map((inner) => () => checkValue(path, inner, value)));
      case "ref": {
        const definition = db.get("typeDefinition", type.reference.$ref);
        checkProperties(path, definition.properties, value);
        return;
      }
    }
  };

  for (const [id, resource] of Object.entries(template.Resources)) {
    const [spec] = db.lookup("resource", "cloudFormationType", "equals", resource.Type);
    if (!spec) {
      problems.push(`${id}: no resource type ${resource.Type}`);
      continue;
    }
    checkProperties(`${id}.Properties`, spec.properties, resource.Properties ?? {});
  }
  return problems;
}
