// Running the smoke's steps in order, one line each, and deleting every post they made.
import { ApiError } from "../../../client/errors.mjs";
import { STEPS } from "./checks.mjs";
import { Deviation } from "./expect.mjs";

/**
 * Runs every step in order, printing one line each; a step whose need is unmet, or any after a
 * halt, is printed as skipped. Returns how many failed.
 * @param {import("./checks.mjs").SmokeContext} ctx
 * @param {(line: string) => void} print
 */
export async function runSteps(ctx, print) {
  let failed = 0;
  for (const [index, step] of STEPS.entries()) {
    if (ctx.signal.aborted) break;
    if (ctx.halt) {
      print(`skip  the ${STEPS.length - index} steps left: ${ctx.halt}`);
      break;
    }
    const skipWhy = step.skipWhy?.(ctx);
    if (skipWhy !== undefined) {
      print(`skip  ${step.name}: ${skipWhy}`);
      continue;
    }
    if (step.needs !== undefined && !ctx[step.needs]) {
      print(
        `skip  ${step.name}: the ${step.needs === "post" ? "create" : "delete"} step did not pass`,
      );
      continue;
    }
    try {
      print(`ok    ${step.name}: ${await step.run(ctx)}`);
    } catch (error) {
      if (ctx.signal.aborted) break;
      failed += 1;
      const message = /** @type {Error} */ (error).message;
      // An answer that broke a rule fails this step; no answer at all (nothing listening, not
      // this API) fails every later one too. The client's message names the request.
      if (!(error instanceof Deviation || error instanceof ApiError)) {
        ctx.halt = "the service did not answer";
      }
      print(`FAIL  ${step.name}: ${message}`);
    }
  }
  return failed;
}

/**
 * Deletes every post the steps made. Returns the ids it could not delete.
 * @param {import("./checks.mjs").SmokeContext} ctx
 * @param {AbortSignal} signal
 */
export async function cleanUp(ctx, signal) {
  const left = [];
  for (const id of ctx.created) {
    try {
      await ctx.blog.deletePost(id, { signal });
      ctx.created.delete(id);
    } catch {
      left.push(id);
    }
  }
  return left;
}
