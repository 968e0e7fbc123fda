// `npm run docs`: the API reference, one HTML page built from openapi.yaml by Redocly. Redoc's
// scripts are inlined (--inlineBundle) rather than loaded from Redocly's CDN, so the page opens
// from disk with no network; redocly.yaml turns Redocly's telemetry off, so the build needs none.
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { StopError, runWithFlags } from "./lib/cli.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const redocly = `${root}node_modules/@redocly/cli/bin/cli.js`;

/** Where `npm run docs` writes the page (dist/ is git-ignored). */
export const referencePage = `${root}dist/reference/index.html`;

/**
 * Builds the reference for `contract` into `output`, without the operations' one tag, so that
 * Redoc lists the five at the top of its menu, open, not in a collapsed "posts" group. Redocly's
 * own output (a banner on some Node versions, progress lines) is shown only when it fails.
 */
export async function buildReference(output = referencePage, contract = `${root}openapi.yaml`) {
  const { parse } = await import("yaml");
  const shown = parse(await readFile(contract, "utf8"));
  delete shown.tags;
  for (const item of Object.values(shown.paths ?? {})) {
    for (const operation of Object.values(item)) delete operation.tags;
  }
  const scratch = await mkdtemp(join(tmpdir(), "reference-"));
  const file = join(scratch, "openapi.json");
  await writeFile(file, JSON.stringify(shown));
  const args = [redocly, "build-docs", file, "--inlineBundle", "--output", output];
  const built = spawnSync(process.execPath, args, { cwd: root, timeout: 60_000, encoding: "utf8" });
  await rm(scratch, { recursive: true, force: true });
  if (built.status !== 0) {
    const why = built.error?.message ?? `exit code ${built.status}`; // a timeout, say
    throw new StopError(`redocly build-docs failed (${why}):\n${built.stdout}${built.stderr}`);
  }
  return output;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runWithFlags({
    name: "docs",
    usage: `Usage: npm run docs -- [options]

Writes the API reference, one self-contained HTML page built from openapi.yaml by Redocly's CLI,
that opens from disk with no network.

Options:
  --out FILE   where to write it (default dist/reference/index.html)
  -h, --help   this text

Exit codes: 0 written; 2 a bad option, or Redocly could not build it (its output follows).`,
    flags: { out: { type: "string", default: referencePage } },
    async run({ out }) {
      const page = await buildReference(out);
      console.log(`API reference: ${relative(root, page)} (${pathToFileURL(page).href})`);
      return 0;
    },
  });
}
