// The client's types (client/schema.d.ts) are the contract's: generated again from openapi.yaml
// exactly as `npm run client` does, they must be the committed file, byte for byte.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const generator = join(root, "node_modules/openapi-typescript/bin/cli.js");
const run = promisify(execFile);

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "client-types-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** The types `npm run client`'s command writes for the contract at `contract`. */
async function generate(contract: string): Promise<string> {
  const output = join(scratch, `${Math.random().toString(36).slice(2)}.d.ts`);
  await run(process.execPath, [generator, contract, "--output", output], { cwd: root });
  return readFile(output, "utf8");
}

describe("client/schema.d.ts", () => {
  it("is what npm run client generates from openapi.yaml today", async () => {
    const committed = await readFile(join(root, "client/schema.d.ts"), "utf8");
    expect(await generate(join(root, "openapi.yaml"))).toBe(committed);
  });

  it("differs when the contract changes, so the check above can fail", async () => {
    const contract = await readFile(join(root, "openapi.yaml"), "utf8");
    const changed = contract.replace("detail: { type: string }", "detail: { type: integer }");
    expect(changed).not.toBe(contract);
    const copy = join(scratch, "openapi.yaml");
    await writeFile(copy, changed);
    const committed = await readFile(join(root, "client/schema.d.ts"), "utf8");
    expect(await generate(copy)).not.toBe(committed);
  });
});
