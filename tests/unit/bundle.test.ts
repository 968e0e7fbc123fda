// Unit: the build's plugins still apply. They match SDK-internal module paths, so an SDK upgrade
// that moves them would quietly bring back the credential chain's clients and the event-stream
// codec; each handler is bundled in memory (nothing written) and its inputs checked.
import * as esbuild from "esbuild";
import { describe, expect, it } from "vitest";
import { bundleOptions, handlerNames } from "../../scripts/build.mjs";

/** Largest bundle accepted: about 200 KB today, 350 KB if the plugins stop applying. */
const BUNDLE_MAX_BYTES = 230 * 1024;
/**
 * The webhook delivery function carries the SQS and SSM clients instead of DynamoDB's: about
 * 260 KB. It reads a queue, so its cold start delays a delivery, never an API answer.
 */
const BUNDLE_MAX_BYTES_OF: Record<string, number> = { "deliver-webhooks": 275 * 1024 };
/** What the plugins leave out: the default credential chain, its clients, the event-stream codec. */
const LEFT_OUT = [
  /@aws-sdk\/credential-provider-(node|sso|ini|process|web-identity|http|login)\//,
  /@aws-sdk\/nested-clients\//,
  /@aws-sdk\/token-providers\//,
  /@smithy\/credential-provider-imds\//,
  /@smithy\/core\/dist-es\/submodules\/event-streams\//,
];

describe.each(handlerNames)("the %s bundle", (name) => {
  const maxBytes = BUNDLE_MAX_BYTES_OF[name] ?? BUNDLE_MAX_BYTES;
  it(`leaves out what Lambda never runs and stays under ${maxBytes / 1024} KB`, async () => {
    const result = await esbuild.build({
      ...bundleOptions,
      entryPoints: { index: `handlers/${name}.ts` },
      outdir: `dist/${name}`,
      write: false,
      metafile: true,
    });
    const inputs = Object.keys(result.metafile.inputs);
    for (const pattern of LEFT_OUT) {
      expect(
        inputs.filter((input) => pattern.test(input)),
        String(pattern),
      ).toEqual([]);
    }
    const bytes = result.outputFiles.reduce((sum, file) => sum + file.contents.byteLength, 0);
    expect(bytes).toBeLessThan(maxBytes);
  });
});
