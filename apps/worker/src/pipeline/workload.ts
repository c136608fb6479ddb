// The run's workload, as the load will run it: parsed from the run's copy (the row may come from anywhere) and a
// "% of a measured maximum" rate resolved, once per run (run-pipeline.ts), then passed to the limits check,
// provision and load. A load generator of a split run resolves it the same way (segments/generator.ts).
import { resolveRate, workloadSpec, type WorkloadSpec } from "@opsbench/core";
import { type Db, NotFoundError, workspaceScope } from "@opsbench/db";
import { parseOrFail, RunFailure } from "./run-failure";

/** The run's workload spec parsed and resolved; a run that names what it cannot have fails with the reason. */
export async function runWorkload(db: Db, run: { workloadSpec: unknown; workspaceId: string }): Promise<WorkloadSpec> {
  return resolveWorkload(
    parseOrFail(() => workloadSpec.parse(run.workloadSpec), "workload spec"),
    db,
    run.workspaceId,
  );
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
  try {
    return resolveRate(spec, {
      maxThroughputRps: ref.maxThroughputRps,
      requests: ref.requests,
      iterations: ref.iterations,
      saturation: ref.saturation,
    });
  } catch (err) {
    // A reference that cannot give a rate (it did not saturate) fails the run with resolveRate's words.
    throw new RunFailure(err instanceof Error ? err.message : String(err));
  }
}
