// Lambda entry of the stage's guard (lib/app/stage-guard.ts): the ledger's stream, the month's
// turn and a deploy's reconcile.
import { readGuardConfig } from "../lib/app/config.js";
import { stageGuard } from "../lib/app/stage-guard.js";

/** The function Lambda invokes. */
export const handler = stageGuard(readGuardConfig());
