// The host policy (core load-host-policy.ts) for kinds whose provider says the endpoint is not one opsbench started
// (an existing URL, a cloud platform's address, an endpointUrl, a kubernetes ingress), asked twice:
// - before anything is deployed (checkLoadHostBeforeDeploy): an address the spec already names must pass, and one only
//   the deploy will tell (the platform's own) is refused when load could not go there anyway; so no payload is
//   deployed for a run that would be refused;
// - right after deploy (checkLoadHost), on the address the provider answered, before one request is sent; a refusal
//   fails the run, which then tears down what the deploy made.
import { EMPTY_LOAD_HOST_ALLOWLIST, isLoopbackAddress, loadHostVerdict } from "@opsbench/core";
import type { Provider } from "@opsbench/providers";
import type { Provisioned } from "./provision";
import type { RunContext } from "./run-context";
import { refuseProtectedPort } from "./protected-ports";
import { RunFailure } from "./run-failure";

const REMOTE =
  "the runner cannot route k6's load network off this machine (its sandbox does not work, or the host does not forward " +
  'IPv4) and it does not allow unsandboxed scripts (OPSBENCH_ALLOW_UNSANDBOXED_SCRIPTS; docs/security.md "Remote targets")';

export async function checkLoadHostBeforeDeploy(ctx: RunContext, provider: Provider, spec: unknown): Promise<void> {
  if (!provider.outsideEndpoint?.(spec)) return;
  const allowlist = ctx.deps.loadHosts ?? EMPTY_LOAD_HOST_ALLOWLIST;
  const known = provider.knownEndpoint?.(spec) ?? null;
  if (known !== null) {
    const verdict = loadHostVerdict(known, allowlist);
    if (!verdict.allowed) throw new RunFailure(`${verdict.message}; refused before anything was deployed`);
    if (!isLoopbackAddress(verdict.host) && !ctx.deps.k6.remoteLoad)
      throw new RunFailure(`load to ${verdict.host} could not run: ${REMOTE}; refused before anything was deployed`);
    return;
  }
  // Only the deploy tells the address (an ALB's DNS name, a function URL, a Cloud Run uri): a host name, never
  // loopback, never an IP literal. Names match only name entries of the allowlist (never resolved), so an allowlist
  // of addresses alone can never let it pass: refused now rather than after a deploy.
  const nameEntries =
    allowlist.names.length + (allowlist.ports ?? []).filter((p) => !isLoopbackAddress(p.host) && !isIpLiteral(p.host)).length;
  const why =
    allowlist.entries.length === 0
      ? "no remote host is on the admin's allowlist (OPSBENCH_LOAD_ALLOWED_HOSTS in the worker's environment, now empty)"
      : nameEntries === 0
        ? `no host name is on the admin's allowlist, and the platform's address is one (OPSBENCH_LOAD_ALLOWED_HOSTS in the worker's environment, now: ${allowlist.entries.join(", ")})`
        : !ctx.deps.k6.remoteLoad
          ? REMOTE
          : null;
  if (why)
    throw new RunFailure(
      `the ${provider.kind} target's address is known only after deploy (the platform's own) and load could not go there: ${why}; ` +
        "refused before anything was deployed (give the spec an endpointUrl that passes the host policy)",
    );
}

/** An IPv4 or IPv6 address (as the allowlist stores hosts: IPv6 without brackets). */
function isIpLiteral(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(":");
}

export async function checkLoadHost(ctx: RunContext, provider: Provider, provisioned: Provisioned): Promise<void> {
  refuseProtectedPort(ctx, provisioned.dep.endpoint);
  if (!provider.outsideEndpoint?.(provisioned.spec)) return;
  const verdict = loadHostVerdict(provisioned.dep.endpoint, ctx.deps.loadHosts ?? EMPTY_LOAD_HOST_ALLOWLIST);
  if (!verdict.allowed) throw new RunFailure(verdict.message);
  if (verdict.reason === "allowlist") await ctx.store.event("info", `load host ${verdict.host} is on the admin's allowlist`);
}
