// Test helper: is a log line a valid CloudWatch Embedded Metric Format document? A JSON Schema of
// the EMF specification, then what it cannot say: each metric and dimension present, typed right.
import { Ajv } from "ajv";

const SCALED = [
  ...["Bytes", "Kilobytes", "Megabytes", "Gigabytes", "Terabytes"],
  ...["Bits", "Kilobits", "Megabits", "Gigabits", "Terabits"],
];
/** The units CloudWatch accepts (MetricDatum's StandardUnit). */
const CLOUDWATCH_UNITS = [
  ...["Seconds", "Microseconds", "Milliseconds", "Percent", "Count", "None", ...SCALED],
  ...[...SCALED, "Count"].map((unit) => `${unit}/Second`),
];

const NAME = { type: "string", minLength: 1, maxLength: 255 };

const METRIC = {
  type: "object",
  required: ["Name"],
  additionalProperties: false,
  properties: {
    Name: NAME,
    Unit: { enum: CLOUDWATCH_UNITS },
    StorageResolution: { enum: [1, 60] },
  },
};

const DIRECTIVE = {
  type: "object",
  required: ["Namespace", "Dimensions", "Metrics"],
  additionalProperties: false,
  properties: {
    Namespace: { type: "string", minLength: 1, maxLength: 1024, pattern: "^[^:].*$" },
    Dimensions: { type: "array", items: { type: "array", maxItems: 30, items: NAME } },
    Metrics: { type: "array", maxItems: 100, items: METRIC },
  },
};

/** The EMF document's structure: the root's `_aws` metadata and its metric directives. */
const EMF_SCHEMA = {
  type: "object",
  required: ["_aws"],
  properties: {
    _aws: {
      type: "object",
      required: ["Timestamp", "CloudWatchMetrics"],
      properties: {
        Timestamp: { type: "integer", minimum: 0 },
        // May be empty, as in the specification's own schema: a line that names no metric.
        CloudWatchMetrics: { type: "array", items: DIRECTIVE },
      },
    },
  },
};

const validate = new Ajv({ allErrors: true }).compile(EMF_SCHEMA);

type Directive = { Dimensions: string[][]; Metrics: { Name: string }[] };

const isNumber = (value: unknown) => typeof value === "number" && Number.isFinite(value);

/** What makes `line` an invalid EMF document, one text per problem; empty when it is valid. */
export function emfProblems(line: Record<string, unknown>): string[] {
  if (!validate(line)) {
    return (validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message}`);
  }
  const problems: string[] = [];
  const directives = (line._aws as { CloudWatchMetrics: Directive[] }).CloudWatchMetrics;
  for (const { Dimensions, Metrics } of directives) {
    for (const { Name } of Metrics) {
      const value = line[Name];
      const ok = Array.isArray(value)
        ? value.length > 0 && value.length <= 100 && value.every(isNumber)
        : isNumber(value);
      if (!ok) problems.push(`metric ${Name}: ${JSON.stringify(value)} is not a number`);
    }
    for (const name of Dimensions.flat()) {
      const value = line[name];
      if (typeof value === "string" && value !== "") continue;
      problems.push(`dimension ${name}: ${JSON.stringify(value)} is not a string`);
    }
  }
  return problems;
}
