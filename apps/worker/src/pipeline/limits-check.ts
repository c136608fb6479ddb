// Before anything is deployed: the workload checked again against its workspace's limits as they are now. The API
// checked it when it was saved, but an owner may have lowered a limit since; such a run is refused (FAILED, with
// the limit named), and nothing is deployed. The requirements come from k6 inspect of the compiled script, as at the API.
import { compileEngineInput, generatorsBreach, type WorkloadSpec, type WorkspaceLimits, workloadLimitBreaches } from "@opsbench/core";
import type { RunContext } from "./run-context";
import { RunFailure } from "./run-failure";

/** `workload`: the run's, resolved once (workload.ts). */
export async function checkLimits(ctx: RunContext, workload: WorkloadSpec): Promise<WorkspaceLimits> {
  const limits = await ctx.store.limits();
  const { script, ...bundle } = compileEngineInput(workload);
  const inspected = await ctx.deps.k6.runner.inspect(script, bundle);
  if (!inspected.ok) throw new RunFailure(`the workload's script does not pass k6 inspect: ${inspected.message}`);
  // Arrival rates and VUs summed over the scenarios that run at once (core's rules), and the generators asked for.
  const generators = generatorsBreach(workload, limits);
  const breaches = [...workloadLimitBreaches(inspected, limits), ...(generators ? [generators] : [])];
  if (breaches.length > 0)
    throw new RunFailure(
      `refused by the workspace's limits, checked again as the run started: the workload ${breaches.map((b) => b.message).join("; ")}`,
    );
  return limits;
}
