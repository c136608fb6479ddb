// Between claim and provision: every check that can be made before anything is deployed, so that a run that would
// be refused deploys nothing (no image, no userData, no manifest runs for it). The target's spec is parsed (the row
// may come from anywhere, and an address it names is never a port of opsbench's own services: protected-ports.ts);
// then credentials by role (target-credential.ts) and the host policy for addresses known
// before deploy (load-host-check.ts: the admin's allowlist or the workspace's proof of ownership; a platform's own
// address is admitted after deploy as made for this run). The workload's limits (limits-check.ts) are checked beside these; the
// credential is checked against its platform at the start of PROVISION, before deploy.
import type { Provider } from "@opsbench/providers";
import type { ClaimedRun } from "./claim";
import { checkLoadHostBeforeDeploy } from "./load-host-check";
import { refuseProtectedPortBeforeDeploy } from "./protected-ports";
import type { RunContext } from "./run-context";
import { parseOrFail } from "./run-failure";
import { checkCredentialRole } from "./target-credential";

export async function checkBeforeDeploy(ctx: RunContext, provider: Provider, { run, target }: ClaimedRun): Promise<void> {
  refuseProtectedPortBeforeDeploy(ctx, target);
  const spec = parseOrFail(() => provider.spec.parse(target.spec), "target spec");
  await checkCredentialRole(ctx, spec);
  await checkLoadHostBeforeDeploy(ctx, provider, spec, run.targetId ?? "<target>");
}
