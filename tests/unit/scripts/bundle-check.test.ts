// Unit: the check every build makes of its bundles (scripts/build.mjs), on metafiles made here.
// The real bundles meet it whenever the suite's global setup or npm run build builds them.
import type { Metafile } from "esbuild";
import { describe, expect, it } from "vitest";
import { BUNDLE_MAX_BYTES, BUNDLE_MAX_BYTES_OF, bundleProblems } from "../../../scripts/build.mjs";

/** A metafile with these inputs, each keeping a byte in its one output of `bytes`. */
function metafile(inputs: string[], bytes: number): Metafile {
  const input = { bytes: 1, imports: [] };
  const kept = Object.fromEntries(inputs.map((path) => [path, { bytesInOutput: 1 }]));
  return {
    inputs: Object.fromEntries(inputs.map((path) => [path, input])),
    outputs: { "index.mjs": { bytes, inputs: kept, imports: [], exports: [] } },
  };
}

const kept = [
  "node_modules/@aws-sdk/lib-dynamodb/dist-es/index.js",
  "node_modules/@aws-sdk/credential-provider-env/dist-es/fromEnv.js",
];

describe("bundleProblems", () => {
  it("passes a bundle of what Lambda runs, at the size limit", () => {
    expect(bundleProblems("get-post", metafile(kept, BUNDLE_MAX_BYTES))).toEqual([]);
  });

  it.each([
    "node_modules/@aws-sdk/credential-provider-node/dist-es/index.js",
    "node_modules/@aws-sdk/credential-provider-sso/dist-es/index.js",
    "node_modules/@aws-sdk/nested-clients/dist-es/submodules/sts/index.js",
    "node_modules/@aws-sdk/token-providers/dist-es/index.js",
    "node_modules/@smithy/credential-provider-imds/dist-es/index.js",
    "node_modules/@smithy/core/dist-es/submodules/event-streams/index.js",
  ])("names %s, which the plugin leaves out", (input) => {
    const problems = bundleProblems("get-post", metafile([...kept, input], 1000));
    expect(problems).toEqual([`get-post: bundles ${input}, which Lambda never runs`]);
  });

  it("names a bundle one byte over the limit", () => {
    const over = `list-posts: ${BUNDLE_MAX_BYTES + 1} bytes, over ${BUNDLE_MAX_BYTES}`;
    expect(bundleProblems("list-posts", metafile(kept, BUNDLE_MAX_BYTES + 1))).toEqual([over]);
  });

  it("holds the webhook delivery function to its own, larger limit", () => {
    const max = BUNDLE_MAX_BYTES_OF["deliver-webhooks"] ?? 0;
    expect(max).toBeGreaterThan(BUNDLE_MAX_BYTES);
    expect(bundleProblems("deliver-webhooks", metafile(kept, max))).toEqual([]);
    expect(bundleProblems("deliver-webhooks", metafile(kept, max + 1))).toHaveLength(1);
  });

  it("names a package only a devDependency brings: what a function ships is a dependency", () => {
    const packages = {
      "node_modules/jose": { dev: true },
      "node_modules/@aws-sdk/lib-dynamodb": {},
    };
    const input = "node_modules/jose/dist/webapi/jwt/verify.js";
    const problems = bundleProblems("authorize-writes", metafile([...kept, input], 1000), packages);
    expect(problems).toEqual(["authorize-writes: bundles jose, a devDependency"]);
    expect(bundleProblems("authorize-writes", metafile(kept, 1000), packages)).toEqual([]);
    // A file esbuild read but shook out entirely is not shipped.
    const shaken = metafile([...kept, input], 1000);
    shaken.outputs["index.mjs"]!.inputs[input] = { bytesInOutput: 0 };
    expect(bundleProblems("grant-scopes", shaken, packages)).toEqual([]);
  });

  it("names two copies of the SDK's core in one bundle", () => {
    const nested = "node_modules/@aws-sdk/client-sqs/node_modules/@aws-sdk/core/dist-es/index.js";
    const inputs = [...kept, "node_modules/@aws-sdk/core/dist-es/index.js", nested];
    expect(bundleProblems("deliver-webhooks", metafile(inputs, 1000), {})).toEqual([
      "deliver-webhooks: bundles two @aws-sdk/core: node_modules/@aws-sdk/core, " +
        "node_modules/@aws-sdk/client-sqs/node_modules/@aws-sdk/core",
    ]);
  });
});
