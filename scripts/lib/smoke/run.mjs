// Running the smoke's steps in order, one line each, and deleting every post they made.
import { STEPS } from "./checks.mjs";
import { Deviation } from "./expect.mjs";
import { send } from "./http.mjs";

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
      if (error instanceof Deviation) {
        print(`FAIL  ${step.name}: ${message}`);
      } else {
        // The service could not be reached or did not answer: no later step can pass.
        ctx.halt = "the service did not answer";
        print(`FAIL  ${step.name}: ${ctx.base}: ${message}`);
      }
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
      const answer = await send(ctx.base, "DELETE", `/api/post/${id}`, {
        headers: ctx.token ? { authorization: `Bearer ${ctx.token}` } : {},
        signal,
      });
      if (answer.status === 204) ctx.created.delete(id);
      else left.push(id);
    } catch {
      left.push(id);
    }
  }
  return left;
}
