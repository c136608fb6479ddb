// Step 7, teardown: always, also after a failure or an abort, and also by whoever
// finds the run interrupted (interrupted-run.ts). Then the run gets its final status.
// The deployment this worker holds in memory is torn down as it is, without reading
// the database first: a database outage must not leave the target running.
import type { CredentialSecret, TargetSnapshot } from "@opsbench/core";
import { rmSync } from "node:fs";
import path from "node:path";
import type { Deployment } from "@opsbench/providers";
import { providerFor } from "@opsbench/providers";
import { flagPartial } from "./partial-results";
import type { Provisioned } from "./provision";
import { providerContext, type RunContext } from "./run-context";
import { errorMessage } from "./run-failure";
import { tellExporters, tellNewChanges, tellRunFailed } from "./run-failed-notice";
import { openTargetCredential } from "./target-credential";

/** Runs a bookkeeping write that must not stop the teardown itself (e.g. while the database is away). */
async function bestEffort(ctx: RunContext, what: string, write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (err) {
    ctx.log.warn({ err }, `could not record ${what}`);
  }
}

/** What the run holds in memory of its deployment: torn down as it is (provision.ts), without reading the database. */
export type HeldDeployment = Pick<Provisioned, "dep" | "credential">;

/** The deployment's state: the one held in memory when there is one, else what PROVISION recorded (full or partial). */
async function stateToTearDown(ctx: RunContext, held: HeldDeployment | null | undefined): Promise<unknown> {
  if (held?.dep.state) return held.dep.state;
  const provision = await ctx.store.step("PROVISION");
  return (provision?.detail as { state?: unknown } | null | undefined)?.state;
}

/** Tears down the deployment (see above); throws when something could not be stopped or removed. */
export async function teardown(ctx: RunContext, target: TargetSnapshot, held?: HeldDeployment | null): Promise<void> {
  const { store } = ctx;
  const state = await stateToTearDown(ctx, held);
  if (!state) return;
  await bestEffort(ctx, "the teardown's start", () => store.startStep("TEARDOWN"));
  try {
    const provider = providerFor(target.kind);
    // The credential the deploy used when the run holds it; else the stored target's, opened again (not checked).
    const credential: CredentialSecret | null = held
      ? held.credential
      : (await openTargetCredential(ctx, target, { check: false })).credential;
    await provider.teardown({ state } as Deployment, providerContext(ctx, credential));
    await bestEffort(ctx, "the teardown", () => store.finishStep("TEARDOWN", { status: "SUCCEEDED" }));
  } catch (err) {
    await bestEffort(ctx, "the failed teardown", () => store.finishStep("TEARDOWN", { status: "FAILED", error: errorMessage(err) }));
    throw err;
  }
}

/** Attempts at writing the final status while the database does not answer (1+2+4+8+16 s); after that the reconciler ends the run. */
const FINAL_WRITE_ATTEMPTS = 6;

/**
 * Tears down, removes the run's work folder and writes the final status:
 * ABORTED when the signal fired, FAILED with the error(s), else SUCCEEDED.
 * A run that ended early keeps the results it wrote, flagged partial.
 */
export async function finishRun(
  ctx: RunContext,
  target: TargetSnapshot,
  failure: string | null,
  held?: HeldDeployment | null,
): Promise<void> {
  const teardownError = await teardown(ctx, target, held).then(
    () => null,
    (err) => errorMessage(err),
  );
  if (teardownError) failure = failure ? `${failure}; teardown: ${teardownError}` : `teardown: ${teardownError}`;
  rmSync(path.join(ctx.deps.workDir, ctx.runId), { recursive: true, force: true });
  const status = ctx.signal.aborted ? "ABORTED" : failure ? "FAILED" : "SUCCEEDED";
  if (status !== "SUCCEEDED") await flagPartial(ctx, status === "ABORTED" ? "aborted" : "failed");
  for (let attempt = 1; ; attempt++) {
    try {
      await ctx.moveTo(status, { finishedAt: new Date(), error: failure });
      break;
    } catch (err) {
      if (attempt === FINAL_WRITE_ATTEMPTS) {
        ctx.log.error({ err, status }, "could not record the run's end; the reconciler will end it");
        return;
      }
      ctx.log.warn({ err, attempt }, "could not record the run's end; retrying");
      await new Promise((r) => setTimeout(r, 1000 * 2 ** (attempt - 1)));
    }
  }
  ctx.log.info({ status, error: failure }, "run finished");
  if (status === "FAILED") await tellRunFailed(ctx.deps, ctx.runId, ctx.log);
  if (status === "SUCCEEDED") {
    await tellNewChanges(ctx.deps, ctx.runId, ctx.log);
    await tellExporters(ctx.deps, ctx.runId, ctx.log);
  }
}
