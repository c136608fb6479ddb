// Step 2, provision: the target's credential opened and checked, and the provider deploys the target (parsed once,
// before deploy: before-deploy.ts) for the run's workload (resolved once per run: workload.ts). The deployment is the
// PROVISION step's detail; teardown reads it there when it does not hold it. What it made is returned, typed.
import { type CredentialSecret, describeRateSource, type TargetDefinition, type WorkloadSpec } from "@opsbench/core";
import { addRunFlags } from "@opsbench/db";
import type { Deployment, Provider } from "@opsbench/providers";
import { recordStep } from "./record-step";
import { providerContext, type RunContext } from "./run-context";
import { openTargetCredential } from "./target-credential";

/** The target as provisioned for the run: what the later steps and teardown work with. */
export interface Provisioned {
  /** The target, its spec parsed with its kind's schema. */
  target: TargetDefinition;
  workload: WorkloadSpec;
  /** The credential the target names, opened and checked (null: it names none); the provider's later calls use it. */
  credential: CredentialSecret | null;
  dep: Deployment;
}

export async function provision(
  ctx: RunContext,
  provider: Provider,
  target: TargetDefinition,
  workload: WorkloadSpec,
): Promise<Provisioned> {
  return recordStep(ctx, "PROVISION", async () => {
    // A credential the platform refuses stops the run here, before anything is created.
    const { credential } = await openTargetCredential(ctx, target, { check: true });
    if (workload.kind === "constant-arrival-rate" && workload.rateSource)
      await ctx.store.event("info", `rate: ${describeRateSource(workload.rateSource)}`);
    const dep = await provider.deploy(target.spec, providerContext(ctx, credential));
    if (dep.flags?.length) await addRunFlags(ctx.deps.db, ctx.runId, dep.flags);
    return { result: { target, workload, credential, dep }, detail: dep };
  });
}
