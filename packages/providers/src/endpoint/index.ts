// The `endpoint` target kind: an existing deployment at a URL; nothing is deployed or torn down. Optionally linked
// to a namespace (with a kubernetes credential) whose Deployment is observed like the kubernetes kind's.
// Load goes only where the worker's host policy allows (loopback, or a host on the admin's allowlist:
// core load-host-policy.ts, checked by the worker right after deploy; docs/security.md).
import { type EndpointSpec, endpointSpec } from "@opsbench/core";
import { clientFor } from "../kubernetes";
import { observeNamespace } from "../kubernetes/observe";
import type { InfraPoint, Provider } from "../provider";

export interface EndpointState {
  url: string;
  namespace: string | null;
  deployment: string | null;
}

export const endpoint: Provider<EndpointSpec, EndpointState> = {
  kind: "endpoint",
  spec: endpointSpec,

  async deploy(spec, ctx) {
    const linked = spec.linked;
    if (linked?.namespace) await clientFor(ctx); // the linked credential must be a kubeconfig
    const state = { url: spec.url.replace(/\/+$/, ""), namespace: linked?.namespace ?? null, deployment: linked?.deployment ?? null };
    return { endpoint: state.url, state };
  },

  outsideEndpoint: () => true,

  async reset() {},

  async *observe(dep, window, ctx): AsyncIterable<InfraPoint> {
    const { namespace, deployment } = dep.state;
    if (!namespace || !deployment) return;
    yield* observeNamespace(
      await clientFor(ctx, window.signal),
      { namespace, deployment, hpa: null, runId: ctx.runId, minReplicas: 1, readyTimeoutMs: 0 },
      window,
      ctx,
    );
  },

  async teardown() {
    // Nothing was made.
  },
};
