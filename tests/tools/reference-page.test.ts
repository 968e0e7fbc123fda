// Unit: `npm run docs` builds a page carrying every operation of openapi.yaml that opens with no
// network; the checks report a missing operation or a resource fetched from elsewhere.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { buildReference } from "../../scripts/docs.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

type PathItems = Record<string, Record<string, { operationId?: string; summary?: string }>>;
/** The definition a page embeds, which Redoc draws the operations from. */
type Definition = { tags?: unknown; paths?: PathItems; info?: { description: string } };
const definition = (html: string): Definition =>
  JSON.parse(/__redoc_definition = (.+);$/m.exec(html)?.[1] ?? "{}");

/** Every operation of a contract's `paths`, labelled `VERB /path (id): summary`. */
const operationsOf = (paths: PathItems = {}) =>
  Object.entries(paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => {
      const { operationId = "", summary = "" } = item[method]!;
      const label = `${method.toUpperCase()} ${path} (${operationId}): ${summary}`;
      return { operationId, summary, label };
    }),
  );

/** The labels of `operations` a page's definition does not carry. */
function missingOperations(html: string, operations: { label: string }[]): string[] {
  const present = new Set(operationsOf(definition(html).paths).map((op) => op.label));
  return operations.map((op) => op.label).filter((wanted) => !present.has(wanted));
}

/** What the page would fetch as it opens: sources of tags, and modules imported by URL. */
function externalResources(html: string): string[] {
  const attributes = html.matchAll(/<(?:script|link|img|iframe)\b[^>]*?\b(?:src|href)="([^"]*)"/g);
  const imports = html.matchAll(/\bimport\b[^"'`;]*?["'`]((?:https?:)?\/\/[^"'`]+)["'`]/g);
  const urls = [...attributes, ...imports].map((match) => match[1] ?? "");
  return urls.filter((url) => /^(https?:)?\/\//.test(url));
}

const contract = parse(readFileSync(join(root, "openapi.yaml"), "utf8")) as { paths: PathItems };
const operations = operationsOf(contract.paths);

const scratch = mkdtempSync(join(tmpdir(), "reference-page-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const html = await readFile(await buildReference(join(scratch, "index.html")), "utf8");

describe("the reference page", () => {
  it("is built from a contract with the five operations, and names each", () => {
    const ids = operations.map((op) => op.operationId).sort();
    expect(ids).toEqual(["createPost", "deletePost", "getPost", "listPosts", "updatePost"]);
    expect(operations.every((op) => op.summary.length > 0)).toBe(true);
    // The page names every operation: path, method, id and summary.
    expect(html).toContain("<title>Blog Post API</title>");
    expect(missingOperations(html, operations)).toEqual([]);
    for (const op of operations) expect(html).toContain(JSON.stringify(op.summary));
  });

  it("lands on the five operations: none inside a tag's group, the intro about posts first", () => {
    const shown = definition(html);
    expect(shown.tags).toBeUndefined();
    const tagged = Object.values(shown.paths ?? {}).flatMap((item) =>
      Object.values(item).filter((op) => "tags" in op),
    );
    expect(tagged).toEqual([]);
    const opening = shown.info?.description.split("\n\n")[0] ?? "";
    expect(opening).toMatch(/^One resource, the blog post/);
    expect(opening).not.toMatch(/gateway|WAF|404|413/);
  });

  it("opens offline: Redoc is inlined, nothing is loaded from a CDN", () => {
    expect(externalResources(html)).toEqual([]);
    expect(html).toContain("RedocStandalone");
  });
});

describe("the page checks", () => {
  it("report an operation not on the page (all with no definition), and Redoc loaded from a CDN", () => {
    const listPosts = operations.find((op) => op.operationId === "listPosts");
    const changed = html.replaceAll(JSON.stringify(listPosts?.summary), '"List some posts"');
    expect(changed).not.toBe(html);
    expect(missingOperations(changed, operations)).toEqual([
      "GET /api/post (listPosts): List every post, ascending by id",
    ]);
    expect(missingOperations("<html><body></body></html>", operations)).toHaveLength(5);
    const cdn = "https://cdn.redocly.com/redoc/v3.0.1/bundles/redoc.standalone.js";
    const page = [
      `<head><link rel="modulepreload" href="${cdn}" crossorigin="anonymous"></head>`,
      `<body><script type="module">import { hydrate } from "${cdn}";</script></body>`,
    ].join("\n");
    expect(externalResources(page)).toEqual([cdn, cdn]);
    const inline = '<img src="data:image/svg+xml,x"><a href="https://x.test">';
    expect(externalResources(inline)).toEqual([]);
  });
});
