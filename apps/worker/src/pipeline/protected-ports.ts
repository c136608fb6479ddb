// The ports of opsbench's own services (Postgres, Redis, the web app and its ingest endpoint; the worker's
// OPSBENCH_LOAD_BLOCKED_PORTS) are never a load target, whatever the target says (core load-hosts/load-host-policy.ts). Refused
// twice by the worker (before deploy where the target names its address, after deploy for the address it got) and
// once more by the runner before k6 starts.
import { protectedPortVerdict } from "@opsbench/core";
import type { RunContext } from "./run-context";
import { RunFailure } from "./run-failure";

export function refuseProtectedPort(ctx: RunContext, url: string): void {
  const hit = protectedPortVerdict(url, ctx.deps.k6.blockPorts ?? []);
  if (hit) throw new RunFailure(hit.message);
}

/** Before deploy: the address a target names itself (an endpoint's url, a cloud kind's endpointUrl, a kubernetes endpoint). */
export function refuseProtectedPortBeforeDeploy(ctx: RunContext, target: { spec: unknown }): void {
  const spec = (target.spec ?? {}) as Record<string, unknown>;
  for (const key of ["url", "endpointUrl", "endpoint"])
    if (typeof spec[key] === "string" && /^https?:\/\//i.test(spec[key])) refuseProtectedPort(ctx, spec[key]);
}
