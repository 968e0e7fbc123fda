// The worst a month can cost with the spending limit on (npm run cost): the limit, what the stage
// may run past it before every instance has heard, and what a paused stage still pays.
import { WORKLOAD } from "./cost.mjs";

/** @typedef {{ Type: string, Properties?: Record<string, any> }} Resource */
/** @typedef {Pick<typeof import("./spend-code.js"), "usageUsd" | "noUsage" | "SPEND_WINDOW_MS">} SpendCode */

const A_MONTH_SECONDS = 30 * 24 * 3600;

/**
 * The limit the API functions run under, the overshoot's bound and the paused floor, or
 * `{ limitUsd: undefined }` when the limit is off.
 * @param {{ Resources?: Record<string, Resource> }} template @param {SpendCode} spend
 */
export function worstMonth(template, spend) {
  const all = Object.values(template.Resources ?? {});
  const list = all.find((r) => r.Properties?.Handler?.startsWith?.("dist/list-posts"));
  const limit = list?.Properties?.Environment?.Variables?.SPEND_LIMIT_USD;
  if (limit === undefined || limit === "off") return { limitUsd: undefined };
  const stage = all.find((r) => r.Type === "AWS::ApiGateway::Stage")?.Properties ?? {};
  const { ThrottlingRateLimit: rate = 0, ThrottlingBurstLimit: burst = 0 } =
    stage.MethodSettings?.[0] ?? {};
  const memoryGb = (list?.Properties?.MemorySize ?? 1024) / 1024;
  const windowS = spend.SPEND_WINDOW_MS / 1000;
  // The dearest request the workload knows: a plain list, at its bench duration.
  const aList = {
    ...spend.noUsage(),
    requests: 1,
    bytesOut: WORKLOAD.listBytes.plain,
    readUnits: 8,
    gbMs: Math.ceil(WORKLOAD.routeMs.listPosts) * memoryGb,
  };
  const overshootRequests = rate * windowS + burst;
  const refusal = { ...spend.noUsage(), requests: 1, gbMs: memoryGb };
  return {
    limitUsd: Number(limit),
    overshoot: { requests: overshootRequests, usd: overshootRequests * spend.usageUsd(aList) },
    /** At the gateway's throttle of 0, API Gateway bills no refused request. */
    pausedUsd: 0,
    /** Were the throttle not set, each refusal is a request and a function's millisecond. */
    unthrottledUsd: rate * A_MONTH_SECONDS * spend.usageUsd(refusal),
    rate,
    burst,
    windowS,
  };
}

/**
 * The lines npm run cost prints for `worst`.
 * @param {ReturnType<typeof worstMonth>} worst
 */
export function worstLines(worst) {
  if (worst.limitUsd === undefined || !("overshoot" in worst) || !worst.overshoot) {
    return ["With SPEND_LIMIT_USD=off, nothing bounds a month but the stage's throttle."];
  }
  const usd = (/** @type {number} */ n) => `$${n.toFixed(2)}`.padStart(8);
  const { limitUsd, overshoot, rate, burst, windowS, unthrottledUsd } = worst;
  const total = limitUsd + overshoot.usd;
  return [
    `With the spending limit on (SPEND_LIMIT_USD=${limitUsd}), the worst month:`,
    `${usd(limitUsd)}  the limit, a calendar month (UTC), free tiers not deducted`,
    `${usd(overshoot.usd)}  run past it: one ${windowS} s window at the stage's throttle (${rate} a ` +
      `second, ${burst} at once), ${overshoot.requests.toLocaleString("en")} plain lists`,
    `${usd(0)}  paused: the stage's throttle at 0, refusals API Gateway does not bill ` +
      `(${usd(unthrottledUsd).trim()} a month if it could not be set)`,
    `${usd(total)}  at most`,
  ];
}
