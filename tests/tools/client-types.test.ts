// Tools: `npm run lint` checks that client/schema.d.ts is what `npm run client` generates from
// openapi.yaml (the generator's --check). Here that check fails for a contract that changed.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const read = (file: string) => readFileSync(join(root, file), "utf8");
const { scripts } = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
const scratch = mkdtempSync(join(tmpdir(), "client-types-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the client types check", () => {
  it("is what npm run lint runs", () => {
    expect(scripts.lint).toContain("npm run lint:client");
    const check = "openapi-typescript openapi.yaml --output client/schema.d.ts --check";
    expect(scripts["lint:client"]).toBe(check);
  });

  it("fails when the contract changes and the types were not generated again", () => {
    const contract = read("openapi.yaml");
    const changed = contract.replace("detail: { type: string }", "detail: { type: integer }");
    expect(changed).not.toBe(contract);
    const copy = join(scratch, "openapi.yaml");
    writeFileSync(copy, changed);
    // As `lint:client` runs it, on the changed copy.
    const generator = join(root, "node_modules/openapi-typescript/bin/cli.js");
    const args = [generator, copy, "--output", "client/schema.d.ts", "--check"];
    const { status } = spawnSync(process.execPath, args, { cwd: root });
    expect(status).not.toBe(0);
  });
});
