// Build: one minified ES module bundle per handler, AWS SDK included, in dist/<handler>/index.mjs.
import { readFileSync, readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { runWithFlags } from "./lib/cli.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The handler names, from the files in handlers/. */
export const handlerNames = readdirSync(`${root}/handlers`)
  .filter((file) => file.endsWith(".ts"))
  .map((file) => file.slice(0, -3))
  .sort();

/**
 * Leaves out the SDK code a Lambda function never runs, about 150 KB of each bundle:
 * - the default credential chain but its first link, the environment, where Lambda puts the
 *   role's credentials (the client reads it again near expiry): SSO, ini files, process, web
 *   identity, container and instance metadata go, and the STS, SSO and Signin clients they call;
 * - the event-stream codec, a dynamic import only for operations with an event stream, which
 *   DynamoDB, SQS and SSM do not have;
 * - all of the SDK package.json files (read for the user agent) but name and version;
 * - config/prices.json but each price's figures.
 * @type {esbuild.Plugin}
 */
const lambdaOnly = {
  name: "lambda-only",
  setup(build) {
    const ownLookup = Symbol("own lookup");
    build.onResolve({ filter: /^@aws-sdk\/credential-provider-node$/ }, async (args) => {
      if (args.pluginData === ownLookup) return undefined;
      const { path, ...from } = args;
      const original = await build.resolve(path, { ...from, pluginData: ownLookup });
      if (original.errors.length > 0) return { errors: original.errors };
      // The replacement's import resolves from where the original's would.
      return { path: "env-only", namespace: "lambda-only", pluginData: dirname(original.path) };
    });
    build.onLoad({ filter: /.*/, namespace: "lambda-only" }, (args) => ({
      contents: `export { fromEnv as defaultProvider } from "@aws-sdk/credential-provider-env";`,
      resolveDir: args.pluginData,
    }));
    build.onResolve({ filter: /^@smithy\/core\/event-streams$/ }, (args) =>
      args.kind === "dynamic-import" ? { path: args.path, external: true } : undefined,
    );
    build.onLoad(
      { filter: /[\\/]node_modules[\\/]@(aws-sdk|smithy)[\\/][^\\/]+[\\/]package\.json$/ },
      async (args) => {
        const { name, version } = JSON.parse(await readFile(args.path, "utf8"));
        return { contents: JSON.stringify({ name, version }), loader: "json" };
      },
    );
    // The spending limit's meter prices from config/prices.json: its prices go, not their notes.
    build.onLoad({ filter: /[\\/]config[\\/]prices\.json$/ }, async (args) => {
      const { prices } = JSON.parse(await readFile(args.path, "utf8"));
      const rates = Object.entries(prices).map(([key, { usd, per }]) => [key, { usd, per }]);
      return { contents: JSON.stringify({ prices: Object.fromEntries(rates) }), loader: "json" };
    });
  },
};

/**
 * Every bundle's options: the SDK's ES modules tree-shake better than its CommonJS; the banner
 * gives bundled CommonJS code a `require` for Node's built-ins.
 * @type {esbuild.BuildOptions}
 */
export const bundleOptions = {
  bundle: true,
  platform: "node",
  target: "node22",
  format: "esm",
  minify: true,
  mainFields: ["module", "main"],
  outExtension: { ".js": ".mjs" },
  banner: {
    js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);",
  },
  legalComments: "none",
  logLevel: "warning",
  plugins: [lambdaOnly],
};

/** Largest bundle accepted: about 200 KB today, 350 KB if the plugin above stops applying. */
export const BUNDLE_MAX_BYTES = 230 * 1024;
/**
 * The webhook delivery carries the SQS and SSM clients instead of DynamoDB's, about 260 KB: it
 * reads a queue, so its cold start delays a delivery, never an API answer. The stage's guard
 * carries API Gateway's, EventBridge's and SNS's beside DynamoDB's, about 310 KB: it runs when the
 * spending limit's ledger crosses a threshold, never on a request's path.
 * @type {Record<string, number>}
 */
export const BUNDLE_MAX_BYTES_OF = { "deliver-webhooks": 275 * 1024, "stage-guard": 330 * 1024 };
/** What the plugin leaves out: the default credential chain, its clients, the event-stream codec. */
const LEFT_OUT = [
  /@aws-sdk\/credential-provider-(node|sso|ini|process|web-identity|http|login)\//,
  /@aws-sdk\/(nested-clients|token-providers)\/|@smithy\/credential-provider-imds\//,
  /@smithy\/core\/dist-es\/submodules\/event-streams\//,
];

/** A bundle's size in bytes, from its metafile. */
export const bundleBytes = (/** @type {esbuild.Metafile} */ metafile) =>
  Object.values(metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);

/** The largest bundle accepted for the handler `name`, in bytes. */
export const bundleCap = (/** @type {string} */ name) =>
  BUNDLE_MAX_BYTES_OF[name] ?? BUNDLE_MAX_BYTES;

/** @type {Record<string, { dev?: boolean }> | undefined} */
let lockedPackages;
/** The lockfile's packages, by their folder (read once, when a build first checks a bundle). */
const locked = () =>
  (lockedPackages ??= JSON.parse(readFileSync(`${root}/package-lock.json`, "utf8")).packages);

/**
 * What is wrong with one bundle, from its metafile: an input the plugin should have left out (an
 * SDK upgrade moving the paths it matches would bring them back quietly), a package only a
 * devDependency brings (the lockfile marks it `dev`: what ships belongs in dependencies), two copies of the SDK's core (skewed
 * SDK versions in the lockfile), or a size over the cap.
 * @param {string} name @param {esbuild.Metafile} metafile
 */
export function bundleProblems(name, metafile, packages = locked()) {
  const inputs = Object.keys(metafile.inputs);
  const kept = LEFT_OUT.flatMap((pattern) => inputs.filter((input) => pattern.test(input)));
  const [bytes, max] = [bundleBytes(metafile), bundleCap(name)];
  const problems = kept.map((input) => `${name}: bundles ${input}, which Lambda never runs`);
  // What the bundle holds: its output's inputs that kept bytes, not every file esbuild looked at.
  const held = Object.values(metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs).flatMap(([input, { bytesInOutput }]) =>
      bytesInOutput ? [input] : [],
    ),
  );
  const folders = held.map((input) => /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1]);
  for (const folder of new Set(folders)) {
    if (folder && packages[folder]?.dev) {
      problems.push(`${name}: bundles ${folder.replace(/^.*node_modules\//, "")}, a devDependency`);
    }
  }
  const cores = new Set(folders.filter((folder) => folder?.endsWith("node_modules/@aws-sdk/core")));
  if (cores.size > 1) problems.push(`${name}: bundles two @aws-sdk/core: ${[...cores].join(", ")}`);
  if (bytes > max) problems.push(`${name}: ${bytes} bytes, over ${max}`);
  return problems;
}

/** esbuild's options for one handler's bundle, `outdir`/<name>/index.mjs. */
const handlerOptions = (/** @type {string} */ name, /** @type {string} */ outdir) => ({
  ...bundleOptions,
  entryPoints: { index: `${root}/handlers/${name}.ts` },
  outdir: `${outdir}/${name}`,
});

/**
 * Builds every handler into `outdir`/<name>/index.mjs; fails on any bundleProblems, so the tests'
 * and a deployment's bundles are held to them. @param {{ outdir?: string }} [options]
 */
export async function build({ outdir = `${root}/dist` } = {}) {
  const results = await Promise.all(
    handlerNames.map((name) => esbuild.build({ ...handlerOptions(name, outdir), metafile: true })),
  );
  const problems = results.flatMap((result, i) =>
    bundleProblems(handlerNames[i] ?? "", /** @type {esbuild.Metafile} */ (result.metafile)),
  );
  if (problems.length > 0) throw new Error(`build: ${problems.join("; ")}`);
  return results;
}

/**
 * Rebuilds every handler on each change, calling `onBuilt` after each build that succeeds (the
 * first too); returns a function that stops watching.
 * @param {{ outdir?: string, onBuilt?: () => void }} [options]
 */
export async function watch({ outdir = `${root}/dist`, onBuilt } = {}) {
  /** @type {esbuild.Plugin} */
  const notify = {
    name: "notify",
    setup: (build) => build.onEnd((result) => void (result.errors.length === 0 && onBuilt?.())),
  };
  const contexts = await Promise.all(
    handlerNames.map((name) =>
      esbuild.context({ ...handlerOptions(name, outdir), plugins: [lambdaOnly, notify] }),
    ),
  );
  await Promise.all(contexts.map((context) => context.rebuild()));
  await Promise.all(contexts.map((context) => context.watch()));
  return () => Promise.all(contexts.map((context) => context.dispose()));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runWithFlags({
    name: "build",
    usage: `Usage: npm run build

Bundles each handler in handlers/ with esbuild into dist/<handler>/index.mjs, as Lambda runs it.

Exit codes: 0 built; 1 esbuild failed (its messages follow); 2 a bad option.`,
    async run() {
      await build();
      console.log(`built ${handlerNames.length} handlers into dist/`);
      return 0;
    },
  });
}
