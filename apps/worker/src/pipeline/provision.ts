// Step 2, provision: the target's spec is parsed again (the row may come from anywhere),
// the credential checked, and the provider deploys the target for the run's workload (resolved
// once per run: workload.ts). The deployment is the PROVISION step's detail; teardown reads it there.
import { describeRateSource, type WorkloadSpec } from "@opsbench/core";
import { addRunFlags } from "@opsbench/db";
import type { Deployment, Provider } from "@opsbench/providers";
import type { ClaimedRun } from "./claim";
import { recordStep } from "./record-step";
import { providerContext, type RunContext } from "./run-context";
import { parseOrFail } from "./run-failure";
import { openTargetCredential } from "./target-credential";

/** What the later steps work with. */
export interface Provisioned {
  /** The target's spec, parsed by its provider. */
  spec: unknown;
  workload: WorkloadSpec;
  dep: Deployment;
}

export async function provision(ctx: RunContext, provider: Provider, { target }: ClaimedRun, workload: WorkloadSpec): Promise<Provisioned> {
  return recordStep(ctx, "PROVISION", async () => {
    // Validated at the API, and again here: the row may come from anywhere.
    const spec = parseOrFail(() => provider.spec.parse(target.spec), "target spec");
    // A credential the platform refuses stops the run here, before anything is created.
    await openTargetCredential(ctx, spec, { check: true });
    if (workload.kind === "constant-arrival-rate" && workload.rateSource)
      await ctx.store.event("info", `rate: ${describeRateSource(workload.rateSource)}`);
    const dep = await provider.deploy(spec, providerContext(ctx));
    if (dep.flags?.length) await addRunFlags(ctx.deps.db, ctx.runId, dep.flags);
    return { result: { spec, workload, dep }, detail: dep };
  });
}
