// Unit: WEBHOOK_SUBSCRIBERS as config/events.cjs reads it at packaging: public https URLs only.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const { readSubscribers } = require("../../../config/events.cjs") as {
  readSubscribers: (env: Record<string, string>) => { name: string; url: string }[];
};

describe("WEBHOOK_SUBSCRIBERS", () => {
  it("reads name=url pairs, and none when unset", () => {
    expect(readSubscribers({})).toEqual([]);
    expect(
      readSubscribers({
        WEBHOOK_SUBSCRIBERS: " site=https://a.example/x , cdn=https://203.0.114.9/",
      }),
    ).toEqual([
      { name: "site", url: "https://a.example/x" },
      { name: "cdn", url: "https://203.0.114.9/" },
    ]);
  });

  it.each([
    ["site=http://a.example/", "is not https"],
    ["site=https://u:p@a.example/", "carries credentials"],
    ["site=https://localhost:8443/", "an address that is not public"],
    ["site=https://hooks.localhost/", "an address that is not public"],
    // Which addresses are refused: tests/unit/events/address.test.ts walks them all through here.
    ["site=https://127.0.0.1:9001/", "an address that is not public"],
    ["site=https://[::1]/", "an address that is not public"],
    ["site=not a url", "name=https://url pairs"],
    ["a b=https://a.example/", "name=https://url pairs"],
  ])("refuses %s", (setting, reason) => {
    expect(() => readSubscribers({ WEBHOOK_SUBSCRIBERS: setting })).toThrow(reason);
  });
});
