// Unit: the README's and docs/' relative links and anchors resolve, the paths they name in code
// exist (or are ignored outputs), and each checker fails on a broken one.
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  anchorsOf,
  brokenLinks,
  missingPaths,
  namedPaths,
  relativeLinks,
} from "../helpers/doc-links.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const pages = [
  "README.md",
  ...readdirSync(`${root}docs`)
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

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
  it("cover the README and at least one docs page", () => {
    expect(pages.length).toBeGreaterThan(1);
  });

  it.each(pages)("%s: every relative link resolves, every path it names exists", (page) => {
    const markdown = readFileSync(`${root}${page}`, "utf8");
    expect(brokenLinks(root, page, markdown)).toEqual([]);
    // docs/history.md tells of files as they were, some since removed.
    const named = page === "docs/history.md" ? [] : namedPaths(markdown, folders);
    expect(missingPaths(named, tracked, ignoredByGit)).toEqual([]);
    // History lives in git, and in docs/history.md.
    if (page !== "docs/history.md") expect(citedCommits(markdown)).toEqual([]);
  });

  it("the commit check names this repository's commits, and not other hex words", () => {
    const recent = execFileSync("git", ["log", "-20", "--format=%h"], { cwd: root }).toString();
    const commit = recent.split("\n").find((word) => /[a-f]/.test(word) && /\d/.test(word));
    expect(citedCommits(`since ${commit}, request 88c4eece-9023, 1048576`)).toEqual([commit]);
  });

  it("keep docs/performance.md to reference: at most 300 lines", () => {
    const text = readFileSync(`${root}docs/performance.md`, "utf8");
    expect(text.trimEnd().split("\n").length).toBeLessThanOrEqual(300);
  });

  it("the check names a path that is gone, and passes one that is there or ignored", () => {
    const text =
      "See `lib/http/errors.ts`, `bench/results.json`, `lib/http/gone.ts` and `<stage>/x`.";
    const named = namedPaths(text, folders);
    expect(named).toEqual(["lib/http/errors.ts", "bench/results.json", "lib/http/gone.ts"]);
    expect(missingPaths(named, tracked, ignoredByGit)).toEqual(["lib/http/gone.ts"]);
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
    expect(relativeLinks(page)).toEqual([
      "docs/design.md",
      "package.json",
      "#two-words-code-and-more",
    ]);
    expect(brokenLinks(root, "README.md", page)).toEqual([]);
  });

  it("makes GitHub's anchors, numbering repeated headings", () => {
    expect([...anchorsOf("# A b\n## A b\n### C: d!\n## The `npm test` run")]).toEqual([
      "a-b",
      "a-b-1",
      "c-d",
      "the-npm-test-run",
    ]);
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
