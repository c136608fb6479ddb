// Every workload is checked by a worker (k6 inspect) before it is saved: a user's own script must parse, and the
// compiled script's real options (duration, VUs, arrival rate) must fit the workspace's limits. The web app never
// spawns k6: the check goes through the worker's script-validation queue.
import {
  bundleOverCap,
  compileEngineInput,
  rateDependsOnRun,
  resolveRate,
  type ScriptBundle,
  type WorkloadSpec,
  type WorkspaceLimits,
  workloadLimitBreaches,
  generatorsBreach,
  SCRIPT_CHECKS_PER_MINUTE,
} from "@opsbench/core";
import { NotFoundError, type WorkspaceScope } from "@opsbench/db";
import { ScriptValidationUnavailable, type ScriptValidationResult } from "@opsbench/jobs";
import { ApiError } from "@/lib/api/errors";
import { env } from "@/lib/env";
import { assertRate } from "./rate-limit";
import { getScriptValidator } from "./singletons";

/** What k6 inspect says of the source; a 500 when no worker could check it. */
async function inspect(source: string, bundle: ScriptBundle): Promise<ScriptValidationResult> {
  try {
    return await getScriptValidator().validateScript(source, undefined, bundle);
  } catch (err) {
    if (err instanceof ScriptValidationUnavailable) throw new ApiError("internal", `the script could not be checked: ${err.message}`);
    throw err;
  }
}

/**
 * Throws a 422 at `path` (e.g. "spec" or "workloads.2.spec") when the workload's script does not parse (k6's
 * message) or when it asks for more than a limit allows (the message names the limit); a 429 when the workspace
 * asked for more than SCRIPT_CHECKS_PER_MINUTE checks (each one a sandboxed k6 inspect on a worker). Answers
 * what k6 inspect found.
 */
export async function assertWorkloadFits(
  spec: WorkloadSpec,
  limits: WorkspaceLimits,
  path: string,
  workspaceId: string,
): Promise<Extract<ScriptValidationResult, { ok: true }>> {
  // The instance's cap on a script's files, before a worker is asked anything.
  const over = spec.kind === "script" ? bundleOverCap(spec.files, env.OPSBENCH_MAX_SCRIPT_FILES_BYTES) : null;
  if (over) throw new ApiError("invalid_input", `${path}.files: ${over}`, [{ path: `${path}.files`, message: over }]);
  await assertRate("script checks", workspaceId, SCRIPT_CHECKS_PER_MINUTE, "script checks (workload saves) a minute in this workspace");
  // A rate relative to another run's maximum is made concrete when the run is created; its other options are checked now.
  const concrete = rateDependsOnRun(spec)
    ? resolveRate(spec, {
        maxThroughputRps: 1,
        requests: 1,
        iterations: 1,
        saturation: { saturated: true, why: "a stand-in for the check" },
      })
    : spec;
  const { script, ...bundle } = compileEngineInput(concrete);
  const result = await inspect(script, bundle);
  const at = spec.kind === "script" ? `${path}.source` : path;
  if (!result.ok) throw new ApiError("invalid_input", `${at}: ${result.message}`, [{ path: at, message: result.message }]);
  const generators = generatorsBreach(spec, limits);
  const breaches = [...workloadLimitBreaches(result, limits), ...(generators ? [generators] : [])];
  if (breaches.length > 0)
    throw new ApiError(
      "invalid_input",
      breaches.map((b) => `${path}: the workload ${b.message}`).join("; "),
      breaches.map((b) => ({ path, message: `the workload ${b.message}` })),
    );
  return result;
}

/**
 * A rate given as a share of another run's maximum (`rate.percentOfRunMax`) names a run of this workspace: any other
 * id, another workspace's run included, is a 422 at `<path>.rate.runId` that says nothing about that run.
 */
export async function assertRateSourceInWorkspace(scope: WorkspaceScope, spec: WorkloadSpec, path = "spec"): Promise<void> {
  const dep = rateDependsOnRun(spec);
  if (!dep) return;
  try {
    await scope.runs.assertExists(dep.runId);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    const at = `${path}.rate.runId`;
    const message = `no run ${dep.runId} in this workspace: a rate relative to a run's maximum names a run of this workspace`;
    throw new ApiError("invalid_input", `${at}: ${message}`, [{ path: at, message }]);
  }
}
