// A run whose worker died (SIGKILL, OOM, a lost machine) cannot resume its load.
// Whoever finds it (a redelivery of its job, or the reconciler) stops exactly what
// it started (its k6 on the runner, which also stopped it when the dead worker's
// connection dropped; the target from the PROVISION step), closes the steps it left RUNNING, keeps the results written
// so far flagged partial, and ends it FAILED with the reason.
import { rmSync } from "node:fs";
import path from "node:path";
import { isFinalRunStatus } from "@opsbench/core";
import { closeOpenSteps, endUnfinishedRun } from "@opsbench/db";
import { k6Owned } from "@opsbench/jobs";
import { flagPartial } from "./partial-results";
import type { RunContext } from "./run-context";
import { tellRunFailed } from "./run-failed-notice";
import { errorMessage } from "./run-failure";
import { teardown } from "./teardown";

export const INTERRUPTED = "interrupted: the worker stopped while this run was in progress";

/** Ends an interrupted run as described above; false when it had reached a final state meanwhile. */
export async function endInterruptedRun(ctx: RunContext, reason: string): Promise<boolean> {
  const run = await ctx.store.get();
  // Ended meanwhile (the reconciler read its list a moment ago): that outcome and its steps stand.
  if (isFinalRunStatus(run.status)) return false;
  ctx.log.warn({ reason }, "ending an interrupted run: stopping what it recorded");
  const problems: string[] = [];
  const load = run.steps.find((s) => s.name === "LOAD");
  const k6 = k6Owned.safeParse(load?.detail?.k6);
  // Normally gone already; a k6 of this run still on the runner (its worker hung rather than died) is stopped.
  if (load) await ctx.deps.k6.runner.stop(ctx.runId).catch((err) => problems.push(`k6: ${errorMessage(err)}`));
  if (run.targetSpec) await teardown(ctx, run.targetSpec).catch((err) => problems.push(`teardown: ${errorMessage(err)}`));
  rmSync(path.join(ctx.deps.workDir, ctx.runId), { recursive: true, force: true });
  await closeOpenSteps(ctx.deps.db, ctx.runId, reason);
  await flagPartial(ctx, "the worker stopped");
  const error = problems.length ? `${reason}; ${problems.join("; ")}` : reason;
  const ended = await endUnfinishedRun(ctx.deps.db, ctx.runId, "FAILED", error);
  if (ended) {
    await ctx.store.event("error", error).catch(() => {});
    await ctx.publish("status", "FAILED");
    ctx.log.warn({ error, k6: k6.success ? k6.data : null }, "interrupted run ended FAILED");
    await tellRunFailed(ctx.deps, ctx.runId, ctx.log);
  }
  return ended;
}
