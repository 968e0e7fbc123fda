import { describe, expect, it } from "vitest";
import { WORKLOAD } from "../../../scripts/lib/cost.mjs";
import { worstLines, worstMonth } from "../../../scripts/lib/cost-limit.mjs";
import * as spend from "../../../scripts/lib/spend-code.js";

const templateWith = (SPEND_LIMIT_USD: string) => {
  const Handler = "dist/list-posts/index.handler";
  const Environment = { Variables: { SPEND_LIMIT_USD } };
  const throttle = { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 };
  const list = { Handler, MemorySize: 1024, Environment };
  return {
    Resources: {
      ListPostsLambdaFunction: { Type: "AWS::Lambda::Function", Properties: list },
      Stage: { Type: "AWS::ApiGateway::Stage", Properties: { MethodSettings: [throttle] } },
    },
  };
};

describe("the worst month with the spending limit on", () => {
  it("is the limit, one window of the stage's throttle in plain lists, and nothing paused", () => {
    const worst = worstMonth(templateWith("2.5"), spend);
    const usage = { requests: 1, bytesOut: WORKLOAD.listBytes.plain, readUnits: 8 };
    const gbMs = Math.ceil(WORKLOAD.routeMs.listPosts);
    const aList = spend.usageUsd({ ...spend.noUsage(), ...usage, gbMs });
    expect(worst).toMatchObject({ limitUsd: 2.5, pausedUsd: 0, rate: 50, burst: 100 });
    expect("overshoot" in worst && worst.overshoot).toEqual({ requests: 600, usd: 600 * aList });
    const lines = worstLines(worst);
    expect(lines[0]).toContain("SPEND_LIMIT_USD=2.5");
    expect(lines.at(-1)).toBe(`${`$${(2.5 + 600 * aList).toFixed(2)}`.padStart(8)}  at most`);
  });

  it("says nothing bounds a month when the limit is off", () => {
    expect(worstMonth(templateWith("off"), spend)).toEqual({ limitUsd: undefined });
    expect(worstLines({ limitUsd: undefined })).toEqual([
      "With SPEND_LIMIT_USD=off, nothing bounds a month but the stage's throttle.",
    ]);
  });
});
