// Between claim and provision: every check that can be made before anything is deployed, so that a run that would
// be refused deploys nothing (no image, no userData, no manifest runs for it). The target is parsed here, once, with
// its kind's schema (core's targetDefinitionSchema; the row may come from anywhere), after an address its stored spec
// names is refused if it is a port of opsbench's own services (protected-ports.ts); then credentials by role
// (target-credential.ts) and the host policy for addresses known before deploy (load-host-check.ts: the admin's
// allowlist or the workspace's proof of ownership; a platform's own address is admitted after deploy as made for this
// run). The workload's limits (limits-check.ts) are checked beside these; the credential is checked against its
// platform at the start of PROVISION, before deploy. What the checks found is returned: the typed target travels to
// provision and every later step, the admitted host to the check after deploy.
import { type TargetDefinition, type TargetSnapshot, targetDefinitionSchema } from "@opsbench/core";
import type { Provider } from "@opsbench/providers";
import type { ClaimedRun } from "./claim";
import { checkLoadHostBeforeDeploy, type LoadHostCheck } from "./load-host-check";
import { refuseProtectedPortBeforeDeploy } from "./protected-ports";
import type { RunContext } from "./run-context";
import { parseOrFail } from "./run-failure";
import { checkCredentialRole } from "./target-credential";

/** What the checks before deploy found: the target, typed by its kind, and the load host admitted (if any). */
export interface CheckedBeforeDeploy extends LoadHostCheck {
  target: TargetDefinition;
}

/** The run's stored target parsed with its kind's spec schema; a spec that does not fit fails the run with the reasons. */
export function parseRunTarget({ kind, spec }: TargetSnapshot): TargetDefinition {
  return parseOrFail(() => targetDefinitionSchema.parse({ kind, spec }), "target spec", "spec");
}

export async function checkBeforeDeploy(
  ctx: RunContext,
  provider: Provider,
  { run, target: stored }: ClaimedRun,
): Promise<CheckedBeforeDeploy> {
  refuseProtectedPortBeforeDeploy(ctx, stored);
  const target = parseRunTarget(stored);
  await checkCredentialRole(ctx, target.spec);
  const { host } = await checkLoadHostBeforeDeploy(ctx, provider, target, run.targetId ?? "<target>");
  return { target, host };
}
