// Tools: `npm run lint` checks that client/schema.d.ts is what `npm run client` generates from
// openapi.yaml (the generator's --check). Here that check fails for a contract that changed.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const generator = join(root, "node_modules/openapi-typescript/bin/cli.js");
const scripts = (
  JSON.parse(await readFile(join(root, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  }
).scripts;

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "client-types-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** The exit code of the types check, as `lint:client` runs it, for the contract at `contract`. */
function check(contract: string): Promise<number> {
  const args = [contract, "--output", "client/schema.d.ts", "--check"];
  return new Promise((resolve) => {
    execFile(process.execPath, [generator, ...args], { cwd: root }, (error) =>
      resolve(error ? Number(error.code ?? -1) : 0),
    );
  });
}

describe("the client types check", () => {
  it("is what npm run lint runs", () => {
    expect(scripts.lint).toContain("npm run lint:client");
    expect(scripts["lint:client"]).toBe(
      "openapi-typescript openapi.yaml --output client/schema.d.ts --check",
    );
  });

  it("fails when the contract changes and the types were not generated again", async () => {
    const contract = await readFile(join(root, "openapi.yaml"), "utf8");
    const changed = contract.replace("detail: { type: string }", "detail: { type: integer }");
    expect(changed).not.toBe(contract);
    const copy = join(scratch, "openapi.yaml");
    await writeFile(copy, changed);
    expect(await check(copy)).not.toBe(0);
  });
});
