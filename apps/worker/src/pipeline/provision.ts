// Step 2, provision: the target's spec and the workload are parsed again (the row
// may come from anywhere), a "% of a measured maximum" rate is resolved, and the
// provider deploys. The deployment is the PROVISION step's detail; teardown reads it there.
import { describeRateSource, resolveRate, workloadSpec, type WorkloadSpec } from "@opsbench/core";
import { addRunFlags, type Db, NotFoundError, workspaceScope } from "@opsbench/db";
import type { Deployment, Provider } from "@opsbench/providers";
import type { ClaimedRun } from "./claim";
import { recordStep } from "./record-step";
import { providerContext, type RunContext } from "./run-context";
import { parseOrFail, RunFailure } from "./run-failure";
import { openTargetCredential } from "./target-credential";

/** What the later steps work with. */
export interface Provisioned {
  /** The target's spec, parsed by its provider. */
  spec: unknown;
  workload: WorkloadSpec;
  dep: Deployment;
}

export async function provision(ctx: RunContext, provider: Provider, { run, target }: ClaimedRun): Promise<Provisioned> {
  return recordStep(ctx, "PROVISION", async () => {
    // Validated at the API, and again here: the row may come from anywhere.
    const spec = parseOrFail(() => provider.spec.parse(target.spec), "target spec");
    const workload = await resolveWorkload(
      parseOrFail(() => workloadSpec.parse(run.workloadSpec), "workload spec"),
      ctx.deps.db,
      run.workspaceId,
    );
    // A credential the platform refuses stops the run here, before anything is created.
    await openTargetCredential(ctx, spec, { check: true });
    if (workload.kind === "constant-arrival-rate" && workload.rateSource)
      await ctx.store.event("info", `rate: ${describeRateSource(workload.rateSource)}`);
    const dep = await provider.deploy(spec, providerContext(ctx));
    if (dep.flags?.length) await addRunFlags(ctx.deps.db, ctx.runId, dep.flags);
    return { result: { spec, workload, dep }, detail: dep };
  });
}

/**
 * "Stable at X% of a measured maximum": the rate comes from the referenced run's max throughput. Only a run of the
 * run's own workspace is read (through its scope): another workspace's run is "does not exist", like a made-up id.
 */
export async function resolveWorkload(spec: WorkloadSpec, db: Db, workspaceId: string): Promise<WorkloadSpec> {
  if (spec.kind !== "constant-arrival-rate" || typeof spec.rate === "number") return spec;
  const { percentOfRunMax, runId, request } = spec.rate;
  const ref = await workspaceScope(db, workspaceId)
    .runs.measuredMax(runId, request)
    .catch((err: unknown) => {
      if (err instanceof NotFoundError) return null;
      throw err;
    });
  const of = `${percentOfRunMax}% of run ${runId}'s maximum throughput${request ? ` of request "${request}"` : ""}`;
  if (ref?.status !== "SUCCEEDED" || !ref.maxThroughputRps) {
    throw new RunFailure(
      `the workload's rate is ${of}, but that run ${ref ? (ref.status === "SUCCEEDED" ? `has no measured maximum${request ? ` for a request named "${request}"` : ""}` : `has no measured maximum (status ${ref.status})`) : "does not exist in this workspace"}`,
    );
  }
  if (!(ref.iterations > 0) || !(ref.requests > 0)) {
    throw new RunFailure(`the workload's rate is ${of}, but that run recorded no iterations, so its requests per iteration are unknown`);
  }
  return resolveRate(spec, { maxThroughputRps: ref.maxThroughputRps, requests: ref.requests, iterations: ref.iterations });
}
