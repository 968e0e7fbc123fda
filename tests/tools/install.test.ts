// Tools: npm admits only the functions' Node; every install script is reviewed in allowScripts and
// runs with only Node and a shell on the PATH, where a script needing cmake is shown to fail.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { RUNTIME_NODE_VERSION } from "../../scripts/runtime-node.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const TOOLCHAIN = ["cmake", "make", "cc", "gcc", "g++", "c++"];

const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
  packages: Record<string, { hasInstallScript?: boolean }>;
};
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  allowScripts: Record<string, boolean>;
  engines: { node: string };
  devEngines: { runtime: { name: string; version: string; onFail: string } };
};
// npm's own range matcher (a dependency of npm's tools), for the engines' range.
const semver = createRequire(import.meta.url)("semver") as {
  satisfies(version: string, range: string): boolean;
};

const scratch = mkdtempSync(join(tmpdir(), "install-scripts-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// A PATH of only `node` and the shell npm runs scripts in; npm itself is run from where it is.
const bin = join(scratch, "bin");
mkdirSync(bin);
symlinkSync(process.execPath, join(bin, "node"));
symlinkSync(realpathSync("/bin/sh"), join(bin, "sh"));
const npmCli = realpathSync(execFileSync("sh", ["-c", "command -v npm"]).toString().trim());
const onlyNode = { ...process.env, PATH: bin };

/** `npm rebuild --foreground-scripts` in `cwd` under the PATH that holds only Node. */
const rebuild = (cwd: string) => {
  const args = [npmCli, "rebuild", "--foreground-scripts", "--no-bin-links"];
  const options = { cwd, env: onlyNode, encoding: "utf8", timeout: 120_000 } as const;
  return spawnSync(process.execPath, args, options);
};

/** A scratch package.json of a "fixture" 1.0.0 with `json`, in a folder of its own; the folder. */
function scratchProject(name: string, json: object): string {
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  const fixture = { name: "fixture", version: "1.0.0", ...json };
  writeFileSync(join(dir, "package.json"), JSON.stringify(fixture));
  return dir;
}

describe("the Node the project admits", () => {
  it("is the functions' Node line alone, in engines and in devEngines (which npm enforces)", () => {
    const range = manifest.engines.node;
    expect(manifest.devEngines.runtime).toEqual({ name: "node", version: range, onFail: "error" });
    expect(semver.satisfies(RUNTIME_NODE_VERSION, range)).toBe(true);
    expect(semver.satisfies(process.version, range)).toBe(true);
    // Node 20 reached its end of life on 2026-04-30; 22 is not the runtime's line.
    for (const older of ["20.20.2", "22.22.2", "24.14.0"])
      expect(semver.satisfies(older, range), older).toBe(false);
  });

  it("is refused by npm before any script runs, naming the range, when the Node differs", () => {
    const range = `^${Number(process.versions.node.split(".")[0]) + 2}.0.0`;
    const project = scratchProject("other-node", {
      scripts: { test: "node -e \"console.log('script ran')\"" },
      devEngines: { runtime: { name: "node", version: range, onFail: "error" } },
    });
    const run = spawnSync(process.execPath, [npmCli, "test"], { cwd: project, encoding: "utf8" });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("EBADDEVENGINES");
    expect(run.stderr).toContain(range);
    expect(run.stdout + run.stderr).not.toContain("script ran");
  });
});

describe("the project's install", () => {
  it("has no runtime client, and every install script it names is reviewed", () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => path.replace(/^.*node_modules\//, ""))
      .sort();
    expect(Object.keys(lock.packages).some((path) => path.endsWith("aws-lambda-ric"))).toBe(false);
    expect(Object.keys(manifest.allowScripts).sort()).toEqual(withScripts);
    const reviewed = { esbuild: true, "@scarf/scarf": false, "es5-ext": false };
    expect(manifest.allowScripts).toEqual(reviewed);
  });

  it("hides every compiler from the PATH it checks under, where a script needing cmake fails", () => {
    const found = (command: string) =>
      spawnSync("/bin/sh", ["-c", `command -v ${command}`], { env: onlyNode }).status === 0;
    expect(found("node")).toBe(true);
    for (const command of TOOLCHAIN) expect(found(command), command).toBe(false);
    const project = scratchProject("needs-cmake", {
      dependencies: { "needs-cmake": "1.0.0" },
      allowScripts: { "needs-cmake": true },
    });
    const needsCmake = { name: "needs-cmake", scripts: { install: "cmake ." } };
    scratchProject("needs-cmake/node_modules/needs-cmake", needsCmake);
    const run = rebuild(project);
    expect(run.status, run.stdout + run.stderr).not.toBe(0);
    expect(run.stdout + run.stderr).toMatch(/cmake: (command )?not found/);
  });

  it("runs every install script of the project's packages with Node alone", () => {
    const run = rebuild(root);
    expect(run.status, run.stdout + run.stderr).toBe(0);
  });
});
