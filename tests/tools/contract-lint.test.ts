// Tools: each of `npm run lint:contract`'s two linters fails a copy of openapi.yaml with one
// warning-level problem added, so the lint step that passes openapi.yaml (npm run lint) can fail.
// The commands are read from package.json: dropping the flag that turns a warning into a failure
// fails here.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const contract = readFileSync(join(root, "openapi.yaml"), "utf8");
const scripts = (
  JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  }
).scripts;

/** `lint:contract`'s commands by linter, as program and arguments, `openapi.yaml` among them. */
const commands = new Map(
  (scripts["lint:contract"] ?? "").split(" && ").map((command) => {
    const [program = "", ...args] = command.trim().split(/\s+/);
    return [program, args] as const;
  }),
);

interface Outcome {
  code: number;
  stdout: string;
  output: string;
}

/** Runs one of the linters on `file` (cwd is the repository, where both find their config). */
function lint(linter: string, file: string, extraArgs: string[] = []): Promise<Outcome> {
  const args = (commands.get(linter) ?? []).map((arg) => (arg === "openapi.yaml" ? file : arg));
  return new Promise((resolve) => {
    execFile(
      join(root, "node_modules/.bin", linter),
      [...args, ...extraArgs],
      { cwd: root, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, output: `${stdout}${stderr}` });
      },
    );
  });
}

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "contract-lint-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A copy of the contract with `from` replaced by `to`, written to the scratch folder. */
async function copyWith(name: string, from: string, to: string): Promise<string> {
  const changed = contract.replace(from, to);
  // A replacement that matched nothing would leave a clean contract, and the test would pass
  // for the wrong reason.
  expect(changed).not.toBe(contract);
  const file = join(scratch, name);
  await writeFile(file, changed);
  return file;
}

describe("npm run lint:contract", () => {
  it("runs Spectral and Redocly on openapi.yaml", () => {
    expect([...commands.keys()]).toEqual(["spectral", "redocly"]);
    for (const args of commands.values()) expect(args).toContain("openapi.yaml");
  });
});

describe("the contract linters", () => {
  // info-contact is a warning in Spectral's rules: only --fail-severity=warn makes it fail.
  it("Spectral fails a contract without info.contact", async () => {
    const file = await copyWith(
      "no-contact.yaml",
      "  contact:\n    name: Blog Post API maintainers\n",
      "",
    );
    const outcome = await lint("spectral", file);
    expect(outcome.code, outcome.output).not.toBe(0);
    expect(outcome.output).toContain("info-contact");
  });

  // tag-description is a warning in Redocly's recommended rules, which `redocly lint` would pass.
  it("Redocly fails a contract whose tag has no description", async () => {
    const file = await copyWith(
      "no-tag-description.yaml",
      "  - name: posts\n    description:",
      "  - name: posts\n    x-description:",
    );
    const outcome = await lint("redocly", file);
    expect(outcome.code, outcome.output).not.toBe(0);
    expect(outcome.output).toContain("tag-description");
  });
});
