// Between provision and baseline: when the provider says the endpoint is not one opsbench started (an existing URL,
// a cloud platform's address, an endpointUrl), the host policy (core load-host-policy.ts) must allow it before one
// request is sent; a refusal fails the run, which then tears down what the deploy made.
import { EMPTY_LOAD_HOST_ALLOWLIST, loadHostVerdict } from "@opsbench/core";
import type { Provider } from "@opsbench/providers";
import type { Provisioned } from "./provision";
import type { RunContext } from "./run-context";
import { refuseProtectedPort } from "./protected-ports";
import { RunFailure } from "./run-failure";

export async function checkLoadHost(ctx: RunContext, provider: Provider, provisioned: Provisioned): Promise<void> {
  refuseProtectedPort(ctx, provisioned.dep.endpoint);
  if (!provider.outsideEndpoint?.(provisioned.spec)) return;
  const verdict = loadHostVerdict(provisioned.dep.endpoint, ctx.deps.loadHosts ?? EMPTY_LOAD_HOST_ALLOWLIST);
  if (!verdict.allowed) throw new RunFailure(verdict.message);
  if (verdict.reason === "allowlist") await ctx.store.event("info", `load host ${verdict.host} is on the admin's allowlist`);
}
