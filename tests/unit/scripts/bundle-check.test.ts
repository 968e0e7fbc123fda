// Unit: the check every build makes of its bundles (scripts/build.mjs), on metafiles made here.
// The real bundles meet it whenever the suite's global setup or npm run build builds them.
import type { Metafile } from "esbuild";
import { describe, expect, it } from "vitest";
import { BUNDLE_MAX_BYTES, BUNDLE_MAX_BYTES_OF, bundleProblems } from "../../../scripts/build.mjs";

/** A metafile with these inputs and one output of `bytes`. */
function metafile(inputs: string[], bytes: number): Metafile {
  const input = { bytes: 1, imports: [] };
  return {
    inputs: Object.fromEntries(inputs.map((path) => [path, input])),
    outputs: { "index.mjs": { bytes, inputs: {}, imports: [], exports: [] } },
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
    expect(bundleProblems("list-posts", metafile(kept, BUNDLE_MAX_BYTES + 1))).toEqual([
      `list-posts: ${BUNDLE_MAX_BYTES + 1} bytes, over ${BUNDLE_MAX_BYTES}`,
    ]);
  });

  it("holds the webhook delivery function to its own, larger limit", () => {
    const max = BUNDLE_MAX_BYTES_OF["deliver-webhooks"] ?? 0;
    expect(max).toBeGreaterThan(BUNDLE_MAX_BYTES);
    expect(bundleProblems("deliver-webhooks", metafile(kept, max))).toEqual([]);
    expect(bundleProblems("deliver-webhooks", metafile(kept, max + 1))).toHaveLength(1);
  });
});
