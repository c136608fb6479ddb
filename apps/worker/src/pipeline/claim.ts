// Step 1, claim: QUEUED -> PROVISIONING with a conditional update, so of two
// deliveries of the same job only one runs it (the row is the truth, not the queue).
// The run's stored target is read here, and only here.
import type { TargetSnapshot } from "@opsbench/core";
import type { RunStore } from "@opsbench/db";
import type { RunContext } from "./run-context";
import { endInterruptedRun, INTERRUPTED } from "./interrupted-run";

export interface ClaimedRun {
  run: Awaited<ReturnType<RunStore["get"]>>;
  target: TargetSnapshot;
}

const IN_FLIGHT = ["PROVISIONING", "RUNNING", "ANALYZING"];

/** The run to execute, or null when this delivery has nothing to do (and has said why on the run). */
export async function claim(ctx: RunContext): Promise<ClaimedRun | null> {
  const { store, log } = ctx;
  if (!(await store.claim())) {
    const run = await store.get();
    if (IN_FLIGHT.includes(run.status)) {
      // Delivered again after a worker died mid-run: load cannot resume, so clean up and say so.
      log.warn({ status: run.status }, "run was interrupted; tearing down what it made");
      await endInterruptedRun(ctx, INTERRUPTED);
    } else {
      log.info({ status: run.status }, "run already claimed or finished; skipping");
    }
    return null;
  }
  await store.update({ k6Version: ctx.deps.k6.version });
  await ctx.publish("status", "PROVISIONING");
  const run = await store.get();
  const target = run.targetSpec;
  if (!target) {
    // Imported runs have no target; they are never queued, but a stray job must not crash.
    await ctx.moveTo("FAILED", { error: "this run has no target to deploy", finishedAt: new Date() });
    return null;
  }
  return { run, target };
}
