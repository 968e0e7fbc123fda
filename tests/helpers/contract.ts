// Test helper: checks real HTTP responses against openapi.yaml, so the document cannot drift, and
// hands out its request schemas to the tests that hold them to the service's rules.
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse } from "yaml";

const DOCUMENT_ID = "openapi.yaml";
const documentPath = new URL("../../openapi.yaml", import.meta.url);

type ResponseObject = {
  $ref?: string;
  content?: Record<string, { schema?: object }>;
  headers?: Record<string, { required?: boolean }>;
};
type Operation = { responses: Record<string, ResponseObject> };

/** The contract, parsed. */
const openApi = parse(readFileSync(documentPath, "utf8")) as {
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, ResponseObject> };
};

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(openApi, DOCUMENT_ID);

/** A validator for one schema of openapi.yaml, by its JSON pointer (`components/schemas/NewPost`). */
export function contractSchema(location: string) {
  const validate = ajv.getSchema(`${DOCUMENT_ID}#/${location}`);
  if (!validate) throw new Error(`openapi.yaml has no schema at ${location}`);
  return validate;
}

const pointer = (...parts: string[]) =>
  parts.map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

/** The path template a concrete path matches; a trailing slash names the same route. */
function templateFor(path: string): string {
  for (const template of Object.keys(openApi.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}/?$`);
    if (pattern.test(path)) return template;
  }
  throw new Error(`No path of openapi.yaml matches ${path}`);
}

/** A response as a test saw it. */
type SeenResponse = { status: number; headers: Headers; text: string };

/** Throws unless openapi.yaml documents this response: status, required headers, type, body. */
export function assertMatchesContract(method: string, path: string, response: SeenResponse) {
  const template = templateFor(new URL(path, "http://x").pathname);
  const verb = method.toLowerCase();
  const operation = openApi.paths[template]?.[verb];
  if (!operation) throw new Error(`openapi.yaml has no ${method} ${template}`);
  const where = `${method} ${template} → ${response.status}`;
  // An exact status first, then its range (`5XX`), as OpenAPI reads them.
  const status = [String(response.status), `${String(response.status)[0]}XX`].find(
    (key) => operation.responses[key],
  );
  if (status === undefined) throw new Error(`${where} is not documented in openapi.yaml`);
  let documented = operation.responses[status]!;
  let location = pointer("paths", template, verb, "responses", status);
  if (documented.$ref) {
    location = documented.$ref.slice(2);
    const shared = openApi.components.responses[documented.$ref.split("/").pop() ?? ""];
    if (!shared) throw new Error(`${where}: dangling $ref`);
    documented = shared;
  }
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    if (header.required && !response.headers.has(name)) {
      throw new Error(`${where}: required header ${name} is missing`);
    }
  }
  const media = documented.content?.["application/json"];
  if (!media) {
    if (response.text !== "")
      throw new Error(`${where}: documented without a body, got ${response.text}`);
    return;
  }
  const type = response.headers.get("content-type") ?? "";
  if (!type.startsWith("application/json")) throw new Error(`${where}: content-type ${type}`);
  const validate = ajv.getSchema(`${DOCUMENT_ID}#/${location}/content/application~1json/schema`);
  if (!validate) throw new Error(`${where}: no schema at ${location}`);
  const body: unknown = JSON.parse(response.text);
  if (!validate(body)) {
    throw new Error(
      `${where}: body does not match openapi.yaml: ${ajv.errorsText(validate.errors)}\n${response.text.slice(0, 500)}`,
    );
  }
}
