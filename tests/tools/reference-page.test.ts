// Unit: `npm run docs` builds a reference page that carries every operation of openapi.yaml and
// opens with no network; and the checks below really report a missing operation or a resource
// fetched from elsewhere.
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReference } from "../../scripts/docs.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

interface Operation {
  method: string;
  path: string;
  operationId: string;
  summary: string;
}
type PathItems = Record<string, Record<string, { operationId?: string; summary?: string }>>;
type Info = { description: string };

/** Every operation of a contract's `paths`. */
function operationsOf(paths: PathItems): Operation[] {
  return Object.entries(paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({
      method,
      path,
      operationId: item[method]?.operationId ?? "",
      summary: item[method]?.summary ?? "",
    })),
  );
}

const label = (op: Operation) =>
  `${op.method.toUpperCase()} ${op.path} (${op.operationId}): ${op.summary}`;

/**
 * The operations a page does not carry. Redoc draws the operations in the browser from the
 * definition embedded in the page (only the introduction is rendered ahead), so that definition
 * is what must hold each one, under its path and method, with its id and summary.
 */
function missingOperations(html: string, operations: Operation[]): string[] {
  const embedded = /__redoc_definition = (.+);$/m.exec(html)?.[1];
  const paths = embedded ? ((JSON.parse(embedded) as { paths?: PathItems }).paths ?? {}) : {};
  const present = new Set(operationsOf(paths).map(label));
  return operations.map(label).filter((wanted) => !present.has(wanted));
}

/**
 * What the page would fetch over the network as it opens: the sources of its scripts,
 * stylesheets, preloads, images and frames, and modules its inline scripts import by URL (how
 * `build-docs` without --inlineBundle loads Redoc from Redocly's CDN).
 */
function externalResources(html: string): string[] {
  const remote = /^(?:https?:)?\/\//;
  const attributes = html.matchAll(/<(?:script|link|img|iframe)\b[^>]*?\b(?:src|href)="([^"]*)"/g);
  const imports = html.matchAll(/\bimport\b[^"'`;]*?["'`]((?:https?:)?\/\/[^"'`]+)["'`]/g);
  return [...attributes, ...imports]
    .map((match) => match[1] ?? "")
    .filter((url) => remote.test(url));
}

const contract = parse(readFileSync(join(root, "openapi.yaml"), "utf8")) as { paths: PathItems };
const operations = operationsOf(contract.paths);

let scratch: string;
let html: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "reference-page-"));
  html = await readFile(await buildReference(join(scratch, "index.html")), "utf8");
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("the reference page", () => {
  it("is built from a contract with the five operations", () => {
    expect(operations.map((op) => op.operationId).sort()).toEqual(
      ["createPost", "deletePost", "getPost", "listPosts", "updatePost"].sort(),
    );
    expect(operations.every((op) => op.summary.length > 0)).toBe(true);
  });

  it("names every operation: path, method, id and summary", () => {
    expect(html).toContain("<title>Blog Post API</title>");
    expect(missingOperations(html, operations)).toEqual([]);
    for (const op of operations) expect(html).toContain(JSON.stringify(op.summary));
  });

  it("lands on the five operations: none inside a tag's group, the intro about posts first", () => {
    const embedded = /__redoc_definition = (.+);$/m.exec(html)?.[1] ?? "{}";
    const shown = JSON.parse(embedded) as { tags?: unknown; paths: PathItems; info: Info };
    expect(shown.tags).toBeUndefined();
    const tagged = Object.values(shown.paths).flatMap((item) =>
      Object.values(item).filter((op) => "tags" in op),
    );
    expect(tagged).toEqual([]);
    const opening = shown.info.description.split("\n\n")[0] ?? "";
    expect(opening).toMatch(/^One resource, the blog post/);
    expect(opening).not.toMatch(/gateway|WAF|404|413/);
  });

  it("opens offline: Redoc is inlined, nothing is loaded from a CDN", () => {
    expect(externalResources(html)).toEqual([]);
    expect(html).toContain("RedocStandalone");
  });
});

describe("the page checks", () => {
  it("report an operation whose summary is not on the page", () => {
    const listPosts = operations.find((op) => op.operationId === "listPosts");
    const changed = html.replaceAll(
      JSON.stringify(listPosts?.summary),
      JSON.stringify("List some posts"),
    );
    expect(changed).not.toBe(html);
    expect(missingOperations(changed, operations)).toEqual([
      "GET /api/post (listPosts): List every post, ascending by id",
    ]);
  });

  it("report every operation of a page with no definition", () => {
    expect(missingOperations("<html><body></body></html>", operations)).toHaveLength(5);
  });

  it("report Redoc loaded from a CDN, as build-docs writes it without --inlineBundle", () => {
    const cdn = "https://cdn.redocly.com/redoc/v3.0.1/bundles/redoc.standalone.js";
    const page = [
      `<head><link rel="modulepreload" href="${cdn}" crossorigin="anonymous"></head>`,
      `<body><script type="module">import { hydrate } from "${cdn}";</script></body>`,
    ].join("\n");
    expect(externalResources(page)).toEqual([cdn, cdn]);
    expect(externalResources('<img src="data:image/svg+xml,x"><a href="https://x.test">')).toEqual(
      [],
    );
  });
});
