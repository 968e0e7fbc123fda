// Tools: lib/ files of at most 170 lines and functions of 40, handlers of 12, no mutable module
// state in lib/ outside lib/app/; each check first shown to fail on a sample.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const MAX_FILE_LINES = 170;
const MAX_FUNCTION_LINES = 40;
const MAX_HANDLER_LINES = 12;

/** The tracked TypeScript files under `folder`. */
const tracked = (folder: string) =>
  execFileSync("git", ["ls-files", `${folder}/*.ts`, `${folder}/**/*.ts`], { cwd: root })
    .toString()
    .split("\n")
    .filter(Boolean);

const read = (path: string) => readFileSync(`${root}${path}`, "utf8");
const lineCount = (text: string) => text.replace(/\n$/, "").split("\n").length;

/** Each function of `text` longer than `max` lines, as `name (lines)`. */
function longFunctions(path: string, text: string, max = MAX_FUNCTION_LINES): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const line = (at: number) => source.getLineAndCharacterOfPosition(at).line;
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const lines = line(node.end) - line(node.getStart(source)) + 1;
      const name = node.name?.getText(source) ?? `function at line ${line(node.getStart()) + 1}`;
      if (lines > max) found.push(`${path}: ${name} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Each module-level `let` or `var` of `text`: state a module keeps between requests. */
function moduleState(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  return source.statements
    .filter(ts.isVariableStatement)
    .filter((statement) => !(statement.declarationList.flags & ts.NodeFlags.Const))
    .map((statement) => `${path}: ${statement.declarationList.getText(source).split("=")[0]}`);
}

describe("the checks", () => {
  it("find a long function and module state, and pass a short one and constants", () => {
    const body = Array.from({ length: 40 }, (_, i) => `  const a${i} = ${i};`).join("\n");
    const long = `function long() {\n${body}\n}\n`;
    expect(longFunctions("x.ts", long)).toEqual(["x.ts: long (42 lines)"]);
    expect(longFunctions("x.ts", `const short = () => {\n${body.slice(0, 200)}\n};\n`)).toEqual([]);
    const text = "let memo: string | undefined;\nconst fixed = 1;\nvar old = 2;\n";
    const state = moduleState("x.ts", text);
    expect(state).toEqual(["x.ts: let memo: string | undefined", "x.ts: var old "]);
  });
});

describe("the code", () => {
  it.each(tracked("lib"))(
    `%s has at most ${MAX_FILE_LINES} lines, functions of ${MAX_FUNCTION_LINES}`,
    (path) => {
      const text = read(path);
      expect(lineCount(text)).toBeLessThanOrEqual(MAX_FILE_LINES);
      expect(longFunctions(path, text)).toEqual([]);
    },
  );

  it.each(tracked("handlers"))(`%s has at most ${MAX_HANDLER_LINES} lines`, (path) => {
    expect(lineCount(read(path))).toBeLessThanOrEqual(MAX_HANDLER_LINES);
  });

  it("keeps no mutable module state in lib/ outside the composition root", () => {
    const paths = tracked("lib").filter((path) => !path.startsWith("lib/app/"));
    expect(paths.flatMap((path) => moduleState(path, read(path)))).toEqual([]);
  });
});
