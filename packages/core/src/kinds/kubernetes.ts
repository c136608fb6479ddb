import { heldNodesOfSpec, kubernetesSpec, podCpuOfSpec } from "../targets/kubernetes-spec";
import { defineKind, read, without } from "./define-kind";

export const kubernetesKind = defineKind({
  kind: "kubernetes",
  spec: kubernetesSpec,
  credential: "kubernetes",
  place: "cluster",
  vcpuPerReplica: (spec) => read.cores(read.resources(spec).cpuLimit) ?? read.cores(read.resources(spec).cpuRequest),
  pin: {
    replicas: (spec, n) =>
      spec.manifests !== undefined
        ? "its manifests bring their own replicas: pin them in the manifests, or give the target an image"
        : { ...without(spec, "minReplicas", "maxReplicas"), replicas: n },
    // The cluster is not resized: the run's pods are held to that many of its nodes (the spec's nodes).
    nodes: (spec, n) => ({ ...spec, nodes: n }),
  },
  // Priced as the nodes its pods are held to (the spec's nodes), else its pods' CPU packed on the model's nodes.
  cost: { billedTime: "none", podCpu: podCpuOfSpec, heldNodes: heldNodesOfSpec },
  observes: ["desired", "ready", "hpaCurrentCpuPercent", "hpaTargetCpuPercent", "restarts", "nodes", "coldStarts"],
  words: {
    label: "kubernetes",
    description: "Deployment, Service, HPA, a Knative Service or an OpenFaaS Function, on any cluster",
    replicas: "replicas",
  },
});
