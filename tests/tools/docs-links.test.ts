// Unit: the README's and docs/' relative links and anchors resolve, the paths they name in code
// exist (or are ignored outputs), and each checker fails on a broken one.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const docs = readdirSync(`${root}docs`).filter((name) => name.endsWith(".md"));
const pages = ["README.md", ...docs.map((name) => `docs/${name}`)];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors a Markdown text offers: its headings' slugs, numbered when repeated. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  // Headings in fenced blocks are not headings; inline code in a heading keeps its text.
  for (const line of withoutFences(markdown).split("\n")) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = headingSlug(heading);
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

const withoutFences = (markdown: string) => markdown.replace(/^```[\s\S]*?^```/gm, "");

/** The text without fenced code blocks and inline code, where brackets are not links. */
const withoutCode = (markdown: string) => withoutFences(markdown).replace(/`[^`\n]*`/g, "");

/** Every link target of a Markdown text that is not a URL with a scheme. */
function relativeLinks(markdown: string): string[] {
  const targets = [...withoutCode(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map(
    (m) => m[1] as string,
  );
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** The broken links of the Markdown file at `file` (under `root`), each as `file: target (why)`. */
function brokenLinks(root: string, file: string, markdown: string): string[] {
  return relativeLinks(markdown).flatMap((target) => {
    const [path = "", anchor] = target.split("#");
    const resolved = path === "" ? join(root, file) : join(root, dirname(file), path);
    const why = (reason: string) => [`${file}: ${target} (${reason})`];
    if (relative(root, resolved).startsWith("..")) return why("outside the repository");
    if (!existsSync(resolved)) return why("no such file");
    if (anchor === undefined || !resolved.endsWith(".md")) return [];
    const page = path === "" ? markdown : readFileSync(resolved, "utf8");
    return anchorsOf(page).has(anchor) ? [] : why("no such heading");
  });
}

/** Every tracked file, and every folder holding one. */
const tracked = new Set(
  execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter(Boolean)
    .flatMap((file) => file.split("/").map((_, i, parts) => parts.slice(0, i + 1).join("/"))),
);
const folders = [...tracked].filter((path) => !path.includes("/") && !path.includes("."));
folders.push(".ci");
const ignoredByGit = (path: string) =>
  spawnSync("git", ["check-ignore", "-q", path], { cwd: root }).status === 0;

/** The paths a Markdown text names in inline code (`lib/http/`) under one of the top folders. */
function namedPaths(markdown: string): string[] {
  const named = [...markdown.matchAll(/`([\w.-]+(?:\/[\w.-]+)+)\/?`/g)].map((m) => m[1] as string);
  return named.filter((path) => folders.includes(path.split("/")[0] ?? ""));
}

/** The paths of `named` that are neither tracked (files, and folders holding one) nor ignored. */
const missingPaths = (named: string[]) =>
  [...new Set(named)].filter((path) => !tracked.has(path) && !ignoredByGit(path));

/** The words of 7 to 40 hex digits, a letter and a digit among them, that name a commit here. */
function citedCommits(text: string): string[] {
  const hex = [...new Set(text.match(/\b[0-9a-f]{7,40}\b/g))];
  const words = hex.filter((word) => /[a-f]/.test(word) && /\d/.test(word));
  const input = words.map((word) => `${word}^{commit}\n`).join("");
  const answers = execFileSync("git", ["cat-file", "--batch-check"], { cwd: root, input });
  const found = answers.toString().split("\n");
  return words.filter((_, i) => !/ (missing|ambiguous)$/.test(found[i] ?? ""));
}

describe("the docs", () => {
  it.each(pages)("%s: every relative link resolves, every path it names exists", (page) => {
    const markdown = readFileSync(`${root}${page}`, "utf8");
    expect(brokenLinks(root, page, markdown)).toEqual([]);
    // History lives in git and in docs/history.md, which tells of files since removed.
    if (page === "docs/history.md") return;
    expect(missingPaths(namedPaths(markdown))).toEqual([]);
    expect(citedCommits(markdown)).toEqual([]);
  });

  it("the checks name a cited commit (not other hex words) and a path that is gone", () => {
    const recent = execFileSync("git", ["log", "-20", "--format=%h"], { cwd: root }).toString();
    const commit = recent.split("\n").find((word) => /[a-f]/.test(word) && /\d/.test(word));
    expect(citedCommits(`since ${commit}, request 88c4eece-9023, 1048576`)).toEqual([commit]);
    const text =
      "See `lib/http/errors.ts`, `bench/results.json`, `lib/http/gone.ts` and `<stage>/x`.";
    const named = namedPaths(text);
    expect(named).toEqual(["lib/http/errors.ts", "bench/results.json", "lib/http/gone.ts"]);
    expect(missingPaths(named)).toEqual(["lib/http/gone.ts"]);
  });

  it("keep docs/performance.md, one of the pages read, to reference: at most 300 lines", () => {
    expect(pages).toContain("docs/performance.md");
    const text = readFileSync(`${root}docs/performance.md`, "utf8");
    expect(text.trimEnd().split("\n").length).toBeLessThanOrEqual(300);
  });
});

describe("the link checker", () => {
  const page = [
    "# Guide",
    "## Two words, `code` and (more)",
    "See [the design](docs/design.md), [a file](package.json) and [below](#two-words-code-and-more).",
    "Not a link: `[x](nowhere.md)` and [web](https://example.com/none).",
    "```",
    "[inside code](missing.md)",
    "```",
  ].join("\n");

  it("reads only relative links outside code, and passes those that resolve", () => {
    const links = ["docs/design.md", "package.json", "#two-words-code-and-more"];
    expect(relativeLinks(page)).toEqual(links);
    expect(brokenLinks(root, "README.md", page)).toEqual([]);
  });

  it("makes GitHub's anchors, numbering repeated headings", () => {
    const headings = "# A b\n## A b\n### C: d!\n## The `npm test` run";
    expect([...anchorsOf(headings)]).toEqual(["a-b", "a-b-1", "c-d", "the-npm-test-run"]);
  });

  it("reports a missing file, a missing heading and a path outside the repository", () => {
    const broken = "[a](docs/nowhere.md) [b](#no-heading) [c](docs/design.md#no-such) [d](../x.md)";
    expect(brokenLinks(root, "README.md", `# Title\n${broken}`)).toEqual([
      "README.md: docs/nowhere.md (no such file)",
      "README.md: #no-heading (no such heading)",
      "README.md: docs/design.md#no-such (no such heading)",
      "README.md: ../x.md (outside the repository)",
    ]);
  });
});
