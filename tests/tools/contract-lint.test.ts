// Tools: each of `npm run lint:contract`'s two linters, run as package.json says, fails a copy of
// openapi.yaml with one warning-level problem added, so the lint step can fail.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const read = (file: string) => readFileSync(join(root, file), "utf8");
const contract = read("openapi.yaml");
const { scripts } = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
const scratch = mkdtempSync(join(tmpdir(), "contract-lint-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `lint:contract`'s commands by linter, as program and arguments, `openapi.yaml` among them. */
const commands = new Map(
  (scripts["lint:contract"] ?? "").split(" && ").map((command) => {
    const [program = "", ...args] = command.trim().split(/\s+/);
    return [program, args] as const;
  }),
);

it("npm run lint:contract runs Spectral and Redocly on openapi.yaml", () => {
  expect([...commands.keys()]).toEqual(["spectral", "redocly"]);
  for (const args of commands.values()) expect(args).toContain("openapi.yaml");
});

describe("the contract linters", () => {
  it.each([
    // A warning in Spectral's rules: only --fail-severity=warn makes it fail.
    ["spectral", "info-contact", "  contact:\n    name: Blog Post API maintainers\n", ""],
    // A warning in Redocly's recommended rules, which `redocly lint` would pass.
    ["redocly", "tag-description", "posts\n    description:", "posts\n    x-description:"],
  ])("%s fails a contract that breaks %s", (linter, rule, from, to) => {
    const changed = contract.replace(from, to);
    // A replacement that matched nothing would pass for the wrong reason.
    expect(changed).not.toBe(contract);
    const file = join(scratch, `${rule}.yaml`);
    writeFileSync(file, changed);
    const args = (commands.get(linter) ?? []).map((arg) => (arg === "openapi.yaml" ? file : arg));
    const options = { cwd: root, encoding: "utf8", timeout: 30_000 } as const;
    const run = spawnSync(join(root, "node_modules/.bin", linter), args, options);
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status, output).not.toBe(0);
    expect(output).toContain(rule);
  });
});
