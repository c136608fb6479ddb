// The `endpoint` target kind: an existing deployment at a URL; nothing is deployed or torn down. Optionally linked
// to a namespace (with a kubernetes credential) whose Deployment is observed like the kubernetes kind's.
// Load goes only where the host policy allows: today a loopback address (the k6 network reaches nothing else,
// docs/security.md); a remote host is refused until the allowlist / ownership proof of the teams issue exists.
import { type EndpointSpec, endpointSpec } from "@opsbench/core";
import { clientFor } from "../kubernetes";
import { observeNamespace } from "../kubernetes/observe";
import { isLoopbackHost } from "../local/load-network";
import { type InfraPoint, type Provider, ProviderError } from "../provider";

export interface EndpointState {
  url: string;
  namespace: string | null;
  deployment: string | null;
}

export const endpoint: Provider<EndpointSpec, EndpointState> = {
  kind: "endpoint",
  spec: endpointSpec,

  async deploy(spec, ctx) {
    const url = new URL(spec.url);
    if (!isLoopbackHost(url.hostname))
      throw new ProviderError(
        `endpoint ${url.host}: load goes only to hosts the host policy allows, and this worker allows loopback addresses only (docs/security.md)`,
      );
    const linked = spec.linked;
    if (linked?.namespace) clientFor(ctx); // the linked credential must be a kubeconfig
    const state = { url: spec.url.replace(/\/+$/, ""), namespace: linked?.namespace ?? null, deployment: linked?.deployment ?? null };
    return { endpoint: state.url, state };
  },

  async reset() {},

  async *observe(dep, window, ctx): AsyncIterable<InfraPoint> {
    const { namespace, deployment } = dep.state;
    if (!namespace || !deployment) return;
    yield* observeNamespace(
      clientFor(ctx),
      { namespace, deployment, hpa: null, runId: ctx.runId, minReplicas: 1, readyTimeoutMs: 0 },
      window,
      ctx,
    );
  },

  async teardown() {
    // Nothing was made.
  },
};
