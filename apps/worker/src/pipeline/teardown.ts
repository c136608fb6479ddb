// Step 7, teardown: always, also after a failure or an abort, and also by a later
// delivery of the same job after a worker died (claim calls it). Then the run gets
// its final status.
import type { TargetSnapshot } from "@opsbench/core";
import { rmSync } from "node:fs";
import path from "node:path";
import type { Deployment } from "@opsbench/providers";
import { providerFor } from "@opsbench/providers";
import { providerContext, type RunContext } from "./run-context";
import { errorMessage } from "./run-failure";
import { openTargetCredential } from "./target-credential";

/** Tears down whatever PROVISION recorded (its full deployment, or the partial state saved on the way). */
export async function teardown(ctx: RunContext, target: TargetSnapshot): Promise<void> {
  const { store } = ctx;
  const provision = await store.step("PROVISION");
  const detail = provision?.detail as { state?: unknown } | null | undefined;
  if (!detail?.state) return;
  await store.startStep("TEARDOWN");
  try {
    const provider = providerFor(target.kind);
    await openTargetCredential(ctx, target.spec, { check: false });
    await provider.teardown({ state: detail.state } as Deployment, providerContext(ctx));
    await store.finishStep("TEARDOWN", { status: "SUCCEEDED" });
  } catch (err) {
    await store.finishStep("TEARDOWN", { status: "FAILED", error: errorMessage(err) });
    throw err;
  }
}

/**
 * Tears down, removes the run's work folder and writes the final status:
 * ABORTED when the signal fired, FAILED with the error(s), else SUCCEEDED.
 */
export async function finishRun(ctx: RunContext, target: TargetSnapshot, failure: string | null): Promise<void> {
  const teardownError = await teardown(ctx, target).then(
    () => null,
    (err) => errorMessage(err),
  );
  if (teardownError) failure = failure ? `${failure}; teardown: ${teardownError}` : `teardown: ${teardownError}`;
  rmSync(path.join(ctx.deps.workDir, ctx.runId), { recursive: true, force: true });
  const status = ctx.signal.aborted ? "ABORTED" : failure ? "FAILED" : "SUCCEEDED";
  await ctx.moveTo(status, { finishedAt: new Date(), error: failure });
  ctx.log.info({ status, error: failure }, "run finished");
}
