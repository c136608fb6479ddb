// run.execute(runId): claim, provision, baseline, load, collect, analyze, and
// teardown (always). Each step lives in ./pipeline/<step>.ts and is recorded on the
// run as it finishes, so a later delivery of the same job never deploys twice and
// can clean up what was made. A step returns what it found (the typed target, the
// credential, the admitted load host, the deployment) and this file hands it to the
// steps that need it; the run's context is read-only. See docs/architecture.md
// ("The run pipeline", "A new step").
import { runStore } from "@opsbench/db";
import { runPhaseSeconds } from "@opsbench/jobs";
import { providerFor } from "@opsbench/providers";
import type { HostHold } from "./load-lock";
import { ABORTED_BY_REQUEST, watchAbortRequest } from "./pipeline/abort-watch";
import { analyze } from "./pipeline/analyze";
import { baseline } from "./pipeline/baseline";
import { checkBeforeDeploy } from "./pipeline/before-deploy";
import { claim } from "./pipeline/claim";
import { collect } from "./pipeline/collect";
import { checkLimits } from "./pipeline/limits-check";
import { load } from "./pipeline/load";
import { checkLoadHost } from "./pipeline/load-host-check";
import { provision, type Provisioned } from "./pipeline/provision";
import { type PipelineDeps, runContext } from "./pipeline/run-context";
import { errorMessage, isExpectedFailure } from "./pipeline/run-failure";
import { finishRun } from "./pipeline/teardown";
import { phase } from "./tracing";
import { runWorkload } from "./pipeline/workload";

export type { PipelineDeps } from "./pipeline/run-context";
export { RunFailure } from "./pipeline/run-failure";

/** How long the baseline check waits by default (a study sets its own). */
export const DEFAULT_BASELINE_WAIT_MS = 120_000;

export interface RunOptions {
  baselineWaitMs?: number;
  /** The host's load lock as the caller holds it for this run (absent: the caller holds none, or holds it itself). */
  host?: HostHold;
}

export async function executeRun(runId: string, deps: PipelineDeps, signal: AbortSignal, options: RunOptions = {}): Promise<void> {
  const abort = watchAbortRequest(runStore(deps.db, runId), signal, deps.log.child({ runId }));
  deps.live?.add(runId);
  try {
    await executeWatchedRun(runId, deps, abort.signal, abort.requested, options);
  } finally {
    deps.live?.delete(runId);
    abort.stop();
  }
}

async function executeWatchedRun(
  runId: string,
  deps: PipelineDeps,
  signal: AbortSignal,
  abortRequested: () => boolean,
  options: RunOptions,
): Promise<void> {
  const startedAt = Date.now();
  const ctx = runContext(runId, deps, signal, options.host);
  const claimed = await phase("claim", runId, () => claim(ctx));
  if (!claimed) return;
  let failure: string | null = null;
  // Held in memory from the moment it exists: teardown uses it (and its credential) without reading the database.
  let provisioned: Provisioned | null = null;
  try {
    const provider = providerFor(claimed.target.kind);
    // Nothing is deployed before every check that can be made without deploying has passed (pipeline/before-deploy.ts);
    // the target is parsed there, once, and travels typed from here on.
    const checked = await phase("check", runId, () => checkBeforeDeploy(ctx, provider, claimed));
    // Parsed and resolved once (a rate may name a measured run): the limits check, provision and load share it.
    const workload = await runWorkload(ctx.deps.db, claimed.run);
    const limits = await checkLimits(ctx, workload);
    provisioned = await phase("provision", runId, () => provision(ctx, provider, checked.target, workload));
    const { host } = await checkLoadHost(ctx, provider, provisioned, checked, claimed.run.targetId ?? "<target>");
    const deployed = provisioned;
    await phase("baseline", runId, () => baseline(ctx, provider, deployed, options.baselineWaitMs ?? DEFAULT_BASELINE_WAIT_MS));
    await ctx.moveTo("RUNNING");
    const k6 = await phase("load", runId, () => load(ctx, provider, deployed, limits, host));
    const appChecks = await phase("collect", runId, () => collect(ctx, provider, deployed));
    await ctx.moveTo("ANALYZING");
    await phase("analyze", runId, () => analyze(ctx, { target: deployed.target, k6, appChecks, workload: deployed.workload }));
  } catch (err) {
    failure = errorMessage(err);
    if (isExpectedFailure(err)) ctx.log.warn({ error: failure }, "run failed");
    else ctx.log.error({ err }, "run failed unexpectedly");
  } finally {
    const outcome = abortRequested() ? ABORTED_BY_REQUEST : failure;
    await phase("teardown", runId, () => finishRun(ctx, claimed.target, outcome, provisioned));
    runPhaseSeconds.observe({ phase: "run", outcome: outcome === null ? "ok" : "failed" }, (Date.now() - startedAt) / 1000);
  }
}
