// The `endpoint` target kind: an existing deployment at a URL; nothing is deployed or torn down. Optionally linked
// to the platform resources behind it, whose metrics then land on the run's timeline as for the kind that would
// have made them: a namespace's Deployment (kubernetes credential), an Auto Scaling group and its ALB (CloudWatch,
// aws credential), or a Cloud Run service (Cloud Monitoring, gcp credential). They are only read, never changed.
// Load goes only where the worker's host policy allows (loopback, or a host on the admin's allowlist:
// core load-hosts/load-host-policy.ts, checked by the worker right after deploy; docs/security.md).
import { type EndpointLink, endpointSpec } from "@opsbench/core";
import { awsAsg } from "../aws-asg";
import { awsCredentialOf } from "../aws/session";
import { gcpCloudRun } from "../gcp-cloud-run";
import { gcpCredentialOf } from "../gcp-cloud-run/clients";
import { clientFor } from "../kubernetes";
import { observeNamespace } from "../kubernetes/observe";
import type { InfraPoint, KindProvider, ProviderContext } from "../provider";

export interface EndpointState {
  url: string;
  linked: EndpointLink | null;
}

/** The credential the link names must be of its platform: checked at deploy, before any request. */
async function checkLinkCredential(link: EndpointLink, ctx: ProviderContext): Promise<void> {
  if (link.namespace) await clientFor(ctx);
  else if (link.autoScalingGroupName) awsCredentialOf(ctx, link.credential);
  else if (link.cloudRunService) gcpCredentialOf(ctx, link.credential);
}

export const endpoint: KindProvider<"endpoint", EndpointState> = {
  kind: "endpoint",
  spec: endpointSpec,

  async deploy(spec, ctx) {
    if (spec.linked) await checkLinkCredential(spec.linked, ctx);
    const state: EndpointState = { url: spec.url.replace(/\/+$/, ""), linked: spec.linked ?? null };
    return { endpoint: state.url, state };
  },

  outsideEndpoint: () => true,
  knownEndpoint: (spec) => spec.url,

  async reset() {},

  async *observe(dep, window, ctx): AsyncIterable<InfraPoint> {
    const { linked } = dep.state;
    const { namespace, deployment } = linked ?? {};
    if (namespace && deployment) {
      yield* observeNamespace(
        await clientFor(ctx, window.signal),
        { namespace, deployment, hpa: null, runId: ctx.runId, minReplicas: 1, readyTimeoutMs: 0, flavour: "deployment" },
        window,
        ctx,
      );
    } else if (linked?.autoScalingGroupName && linked.region) {
      const state = {
        credential: linked.credential,
        region: linked.region,
        autoScalingGroupName: linked.autoScalingGroupName,
        loadBalancerDimension: linked.loadBalancer,
        minSize: 0,
        metrics: linked.metrics,
      };
      yield* awsAsg.observe({ endpoint: dep.endpoint, state }, window, ctx);
    } else if (linked?.cloudRunService && linked.region) {
      const project = linked.projectId ?? gcpCredentialOf(ctx, linked.credential).projectId;
      const state = {
        credential: linked.credential,
        project,
        region: linked.region,
        serviceName: `projects/${project}/locations/${linked.region}/services/${linked.cloudRunService}`,
        metrics: linked.metrics,
      };
      yield* gcpCloudRun.observe({ endpoint: dep.endpoint, state }, window, ctx);
    }
  },

  async teardown() {
    // Nothing was made, and what it is linked to is not opsbench's.
  },
};
