// Build: one minified ES module bundle per handler, AWS SDK included, in dist/<handler>/index.mjs.
import { readdirSync } from "node:fs";
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
 * The credentials chain the bundles use instead of `@aws-sdk/credential-provider-node`. Lambda
 * hands a function its execution role's credentials in AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
 * and AWS_SESSION_TOKEN, the first link of the SDK's default chain. The other links (SSO, shared
 * ini files, credential_process, web identity, container and instance metadata) and the STS, SSO
 * and Signin clients they call are about 130 KB of every bundle that Lambda never runs. Exports
 * what the original module does; reads the environment once, again only if the credentials carry
 * an expiration (AWS_CREDENTIAL_EXPIRATION) that is near.
 */
const ENV_ONLY_CREDENTIALS = `
import { fromEnv } from "@aws-sdk/credential-provider-env";
import { CredentialsProviderError } from "@smithy/core/config";

export const credentialsWillNeedRefresh = (credentials) => credentials?.expiration !== undefined;
export const credentialsTreatedAsExpired = (credentials) =>
  credentials?.expiration !== undefined && credentials.expiration.getTime() - Date.now() < 300000;

export const defaultProvider = (init = {}) => {
  const fromEnvironment = fromEnv(init);
  let credentials;
  return async () => {
    if (credentials && !credentialsTreatedAsExpired(credentials)) return credentials;
    try {
      credentials = await fromEnvironment();
    } catch {
      throw new CredentialsProviderError(
        "No AWS credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: this bundle reads " +
          "credentials only from the environment, where Lambda puts them (scripts/build.mjs)",
        { logger: init.logger, tryNextLink: false },
      );
    }
    return credentials;
  };
};
`;

/**
 * What the SDK's HTTP protocols load, with a dynamic import, for an operation with an event stream.
 * DynamoDB has none, so the event-stream codec (about 15 KB) would never run.
 */
const NO_EVENT_STREAMS = `
const missing = () => {
  throw new Error("Event streams are left out of this bundle (scripts/build.mjs): DynamoDB has none");
};
export const eventStreamSerdeProvider = missing;
export class EventStreamSerde {
  constructor() {
    missing();
  }
}
`;

const REPLACEMENTS = {
  "env-only-credentials": ENV_ONLY_CREDENTIALS,
  "no-event-streams": NO_EVENT_STREAMS,
};

/** Marks the resolutions a plugin asks esbuild for itself, so it does not answer them again. */
const OWN_LOOKUP = Symbol("own lookup");

/**
 * Leaves out of the bundles the SDK code a Lambda function never runs (see above), and keeps only
 * `name` and `version` of the SDK package.json files the clients import for their user agent.
 * @type {esbuild.Plugin}
 */
const lambdaOnly = {
  name: "lambda-only",
  setup(build) {
    /** A module of this plugin's own (REPLACEMENTS), its imports resolved from `resolveDir`. */
    const replaced = (
      /** @type {keyof REPLACEMENTS} */ path,
      /** @type {string} */ resolveDir,
    ) => ({
      path,
      namespace: "lambda-only",
      pluginData: resolveDir,
    });
    build.onResolve({ filter: /^@aws-sdk\/credential-provider-node$/ }, async (args) => {
      if (args.pluginData === OWN_LOOKUP) return undefined;
      // The replacement's imports resolve from where the original's would.
      const { kind, importer, resolveDir } = args;
      const options = { kind, importer, resolveDir, pluginData: OWN_LOOKUP };
      const original = await build.resolve(args.path, options);
      if (original.errors.length > 0) return { errors: original.errors };
      return replaced("env-only-credentials", dirname(original.path));
    });
    build.onResolve({ filter: /^@smithy\/core\/event-streams$/ }, (args) =>
      args.kind === "dynamic-import" ? replaced("no-event-streams", args.resolveDir) : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "lambda-only" }, (args) => ({
      contents: REPLACEMENTS[/** @type {keyof REPLACEMENTS} */ (args.path)],
      resolveDir: args.pluginData,
      loader: "js",
    }));
    build.onLoad(
      { filter: /[\\/]node_modules[\\/]@(aws-sdk|smithy)[\\/][^\\/]+[\\/]package\.json$/ },
      async (args) => {
        const { name, version } = JSON.parse(await readFile(args.path, "utf8"));
        return { contents: JSON.stringify({ name, version }), loader: "json" };
      },
    );
  },
};

/**
 * esbuild options shared by every bundle. The SDK's ES module builds tree-shake better than its
 * CommonJS ones; the banner gives bundled CommonJS code a `require` for Node's built-ins; the
 * plugin leaves out what Lambda never runs.
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
 * The webhook delivery function carries the SQS and SSM clients instead of DynamoDB's: about
 * 260 KB. It reads a queue, so its cold start delays a delivery, never an API answer.
 * @type {Record<string, number>}
 */
export const BUNDLE_MAX_BYTES_OF = { "deliver-webhooks": 275 * 1024 };
/** What the plugin leaves out: the default credential chain, its clients, the event-stream codec. */
export const LEFT_OUT = [
  /@aws-sdk\/credential-provider-(node|sso|ini|process|web-identity|http|login)\//,
  /@aws-sdk\/nested-clients\//,
  /@aws-sdk\/token-providers\//,
  /@smithy\/credential-provider-imds\//,
  /@smithy\/core\/dist-es\/submodules\/event-streams\//,
];

/**
 * What is wrong with one built bundle, from its metafile: an input the plugin should have left
 * out (an SDK upgrade that moves the paths it matches would bring them back quietly), or a size
 * over the limit. Empty when it is fine.
 * @param {string} name @param {esbuild.Metafile} metafile
 */
export function bundleProblems(name, metafile) {
  const inputs = Object.keys(metafile.inputs);
  const kept = LEFT_OUT.flatMap((pattern) => inputs.filter((input) => pattern.test(input)));
  const bytes = Object.values(metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  const max = BUNDLE_MAX_BYTES_OF[name] ?? BUNDLE_MAX_BYTES;
  return [
    ...kept.map((input) => `${name}: bundles ${input}, which Lambda never runs`),
    ...(bytes > max ? [`${name}: ${bytes} bytes, over ${max}`] : []),
  ];
}

/** esbuild's options for one handler's bundle, `outdir`/<name>/index.mjs. */
const handlerOptions = (/** @type {string} */ name, /** @type {string} */ outdir) => ({
  ...bundleOptions,
  entryPoints: { index: `${root}/handlers/${name}.ts` },
  outdir: `${outdir}/${name}`,
});

/**
 * Builds every handler into `outdir`/<name>/index.mjs, and fails if a bundle has a problem
 * (bundleProblems): every build checks, so the tests' and a deployment's bundles are held to it.
 * @param {{ outdir?: string }} [options]
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
 * Rebuilds every handler whenever a source file changes, calling `onBuilt` after each build that
 * succeeds (the first included); returns a function that stops watching.
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
