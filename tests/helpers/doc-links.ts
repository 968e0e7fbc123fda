// Test helper: the relative links of Markdown pages, and which of them lead nowhere.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors a Markdown text offers: its headings' slugs, numbered when repeated. */
export function anchorsOf(markdown: string): Set<string> {
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
export function relativeLinks(markdown: string): string[] {
  const targets = [...withoutCode(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map(
    (m) => m[1] as string,
  );
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** The broken links of the Markdown file at `file` (under `root`), each as `file: target (why)`. */
export function brokenLinks(root: string, file: string, markdown: string): string[] {
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

/** The paths a Markdown text names in inline code (`lib/http/`) under one of the top `folders`. */
export function namedPaths(markdown: string, folders: readonly string[]): string[] {
  const named = [...markdown.matchAll(/`([\w.-]+(?:\/[\w.-]+)+)\/?`/g)].map((m) => m[1] as string);
  return named.filter((path) => folders.includes(path.split("/")[0] ?? ""));
}

/** The paths of `named` that are neither tracked (files, and folders holding one) nor ignored. */
export function missingPaths(
  named: string[],
  tracked: ReadonlySet<string>,
  ignored: (path: string) => boolean,
): string[] {
  return [...new Set(named)].filter((path) => !tracked.has(path) && !ignored(path));
}
