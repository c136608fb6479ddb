// A kubernetes run's deployment state (Deployment.state), apart from index.ts so observe.ts reads it without importing
// the provider that imports observe.ts.
import type { KubernetesFlavour } from "@opsbench/core";
import type { ClusterObjectRef } from "./manifests";

/** What a run made in the cluster, recorded on its PROVISION step: teardown, observe and the reaper work from it. */
export interface KubernetesState {
  namespace: string;
  runId: string;
  /** The Deployment observed and waited for. */
  deployment: string;
  /** The HPA, when there is one of opsbench's (manifests may bring their own under any name). */
  hpa: string | null;
  minReplicas: number;
  readyTimeoutMs: number;
  /** What was made from the image (core KUBERNETES_FLAVOUR_RULES; manifests and charts: "deployment"); observe reads its table row. */
  flavour: KubernetesFlavour;
  /** Flavour knative-service: the Knative Service and the Revision whose Deployment (`deployment`) is observed. */
  knative?: { service: string; revision: string };
  /** Flavour openfaas-function: the Function, whose Deployment (`deployment`, named after it) its operator makes. */
  openfaas?: { function: string };
  /** The spec's nodes: the run holds that many nodes (labelled with the run) and its pods go only there. */
  nodes?: number;
  /** The cluster-scoped objects the run makes (manifests or a chart), recorded before they are made; deleted first at teardown. */
  clusterObjects?: ClusterObjectRef[];
}
